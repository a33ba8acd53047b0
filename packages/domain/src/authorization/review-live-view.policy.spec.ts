import { CUSTOMER_PORTAL_SESSION_TTL_MS } from '../ports/customer-portal-sessions.port';
import { reviewLiveViewUrl, reviewLiveViewUrlLapsesAt } from './review-live-view.policy';

describe('reviewLiveViewUrl', () => {
  const generatedAt = new Date('2026-03-01T10:00:00.000Z');
  const url = 'https://api.example.test/v1/prior-auth/authorizations/auth_1/live-session';
  const later = (ms: number) => new Date(generatedAt.getTime() + ms);

  it('shows the link while the sign-in the review was prepared with is held', () => {
    expect(reviewLiveViewUrl({ liveViewUrl: url, generatedAt }, 'requires_action', generatedAt)).toBe(url);
    expect(
      reviewLiveViewUrl(
        { liveViewUrl: url, generatedAt },
        'waiting_on_payer',
        later(CUSTOMER_PORTAL_SESSION_TTL_MS - 1),
      ),
    ).toBe(url);
  });

  it('hides it once that sign-in has lapsed', () => {
    expect(
      reviewLiveViewUrl(
        { liveViewUrl: url, generatedAt },
        'requires_action',
        later(CUSTOMER_PORTAL_SESSION_TTL_MS),
      ),
    ).toBeNull();
  });

  it.each(['completed', 'canceled'] as const)('hides it once the case is %s', (status) => {
    expect(reviewLiveViewUrl({ liveViewUrl: url, generatedAt }, status, generatedAt)).toBeNull();
  });

  it('keeps a review prepared without a sign-in at null', () => {
    expect(reviewLiveViewUrl({ liveViewUrl: null, generatedAt }, 'requires_action', generatedAt)).toBeNull();
  });

  it('names the moment the link stops being shown, and none when it is never shown', () => {
    expect(reviewLiveViewUrlLapsesAt({ liveViewUrl: url, generatedAt }, 'requires_action')).toBe(
      later(CUSTOMER_PORTAL_SESSION_TTL_MS).getTime(),
    );
    expect(reviewLiveViewUrlLapsesAt({ liveViewUrl: null, generatedAt }, 'requires_action')).toBeNull();
    expect(reviewLiveViewUrlLapsesAt({ liveViewUrl: url, generatedAt }, 'completed')).toBeNull();
  });
});
