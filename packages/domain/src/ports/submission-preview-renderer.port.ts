/** What the submission preview shows (decision 0032): the packet as the payer would receive it. */
export interface SubmissionPacket {
  authorizationId: string;
  payerName: string;
  providerNpi: string;
  /** e.g. `HCPCS E0601 (outpatient, CA)`. */
  service: string;
  questionnaireTitle: string;
  /** Every enabled question in template order, by its text, with its answers as text (none when unanswered). */
  answers: Array<{ linkId: string; question: string; values: string[] }>;
  attachments: Array<{ label: string; fileId: string; documentTypes: string[] }>;
  /** The answers and attachments the preview was rendered for. */
  questionnaireResponseVersion: number;
  attachmentVersion: number;
  renderedAt: Date;
}

/** Renders a submission packet as a PDF document. */
export interface SubmissionPreviewRenderer {
  renderPdf(packet: SubmissionPacket): Promise<Uint8Array>;
}
