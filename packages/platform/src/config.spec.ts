import { ConfigError, loadConfig } from './config';

describe('request timeouts configuration (docs/decisions/0015-hostile-input-and-outages.md)', () => {
  it('defaults to 30 s for a request body and 300 s for a file-bytes upload', () => {
    const config = loadConfig({});
    expect(config.REQUEST_BODY_TIMEOUT_MS).toBe(30_000);
    expect(config.UPLOAD_REQUEST_TIMEOUT_MS).toBe(300_000);
  });

  it('takes whole milliseconds within bounds', () => {
    const config = loadConfig({ REQUEST_BODY_TIMEOUT_MS: '5000', UPLOAD_REQUEST_TIMEOUT_MS: ' 900000 ' });
    expect(config.REQUEST_BODY_TIMEOUT_MS).toBe(5_000);
    expect(config.UPLOAD_REQUEST_TIMEOUT_MS).toBe(900_000);
  });

  it.each([
    ['REQUEST_BODY_TIMEOUT_MS', '999', /REQUEST_BODY_TIMEOUT_MS must be at least 1000/],
    ['REQUEST_BODY_TIMEOUT_MS', '600001', /REQUEST_BODY_TIMEOUT_MS must be at most 600000/],
    ['REQUEST_BODY_TIMEOUT_MS', '2.5', /REQUEST_BODY_TIMEOUT_MS must be a whole number/],
    // Node requires the whole-request bound to stay above the headers' 20 s.
    ['UPLOAD_REQUEST_TIMEOUT_MS', '20000', /UPLOAD_REQUEST_TIMEOUT_MS must be at least 30000/],
    ['UPLOAD_REQUEST_TIMEOUT_MS', '3600001', /UPLOAD_REQUEST_TIMEOUT_MS must be at most 3600000/],
  ])('refuses %s=%s, naming the variable', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });
});
