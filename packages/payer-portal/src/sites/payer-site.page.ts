import { type QuestionnaireItemTemplate } from '@prior-auth/domain';
import { type Page } from 'playwright-core';

/** A sign-in at a payer portal: username, password and the secret of its authenticator (TOTP). */
export interface PortalCredentials {
  username: string;
  password: string;
  totpSecret: string;
}

export interface ServiceDetails {
  externalReference: string;
  serviceCode: string;
  diagnosisCode: string;
  startDate: string;
  endDate: string;
  /** Answers to the payer's own questions, by linkId. */
  extraAnswers: Record<string, string>;
}

export interface UploadedDocument {
  name: string;
  contentType: string;
  bytes: Buffer;
  documentType: string;
}

export interface SiteReceipt {
  referenceNumber: string;
  receivedAt: Date;
}

export type SiteStatus =
  | { status: 'pending' }
  | { status: 'more_information'; documents: { type: string; label: string }[] }
  | {
      status: 'approved' | 'modified' | 'denied' | 'not_required';
      statusText: string;
      decidedAt: Date;
      authorizationNumber: string | null;
      effectiveFrom: string | null;
      effectiveTo: string | null;
      denialReasons: string[];
      modifications: string[];
      letterAvailable: boolean;
    };

/**
 * One payer's page script: every selector and page of that payer's portal lives behind it, so the flow of a
 * portal run (PlaywrightPayerPortal) never names one. Each method leaves the page on the step it names or
 * throws a PayerPortalError saying why not.
 */
export interface PayerSitePage {
  signIn(page: Page, credentials: PortalCredentials): Promise<void>;
  /**
   * In a context started with a kept session: true when the portal still treats it as signed in (the page is
   * then where `signIn` leaves it), false when it must sign in again (expired, ended, never finished).
   */
  resumeSession(page: Page): Promise<boolean>;
  /**
   * Opens the portal's sign-in page and leaves it there, for the customer to sign in with their own account
   * (`customer_login`, decision 0039).
   */
  openSignIn(page: Page): Promise<void>;
  /** Whether the page now shows the portal signed in (past its sign-in steps), without navigating. */
  showsSignedIn(page: Page): Promise<boolean>;
  chooseProvider(page: Page, npi: string): Promise<void>;
  findMember(page: Page, memberId: string, birthDate: string): Promise<void>;
  startRequest(page: Page): Promise<void>;
  /** The payer's own questions on the request form (beyond the route's questionnaire). */
  readExtraQuestions(page: Page): Promise<QuestionnaireItemTemplate[]>;
  fillService(page: Page, details: ServiceDetails): Promise<void>;
  fillClinical(page: Page, text: string): Promise<void>;
  uploadDocument(page: Page, document: UploadedDocument): Promise<void>;
  /** Opens the review page: `human_check` when the portal demands a person before it accepts the request. */
  review(page: Page): Promise<'ready' | 'human_check'>;
  /** Clicks submit; the page is then the confirmation. */
  submit(page: Page): Promise<SiteReceipt>;
  /** Submissions made under a reference the automation typed into the form (oldest first). */
  searchByExternalReference(page: Page, externalReference: string): Promise<SiteReceipt[]>;
  /** Opens a request's confirmation page; null when the payer shows no such request. */
  openConfirmation(page: Page, referenceNumber: string): Promise<SiteReceipt | null>;
  /** Opens a request's status page; null when the payer shows no such request. */
  readStatus(page: Page, referenceNumber: string): Promise<SiteStatus | null>;
  /** Downloads the decision letter from the status page just read. */
  downloadLetter(page: Page): Promise<Buffer>;
}
