import { PDFDocument, StandardFonts } from 'pdf-lib';
import { type RequestStatus } from './request-decision';
import { type RequestRow } from './sandbox-store';

/** The payer's decision letter for a decided request, as the PDF its status page offers for download. */
export async function decisionLetterPdf(request: RequestRow, status: RequestStatus): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setTitle(`Decision letter ${request.referenceNumber}`);
  const page = pdf.addPage([612, 792]);
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  let y = 740;
  const line = (text: string, size = 11, useBold = false) => {
    page.drawText(text, { x: 56, y, size, font: useBold ? bold : font });
    y -= size + 8;
  };
  line('Sandbox Health Plan', 18, true);
  line('Prior authorization decision', 14, true);
  y -= 10;
  line(`Reference number: ${request.referenceNumber}`);
  line(`Member ID: ${request.memberId}`);
  line(`Requesting provider NPI: ${request.providerNpi}`);
  line(`Received: ${request.receivedAt.toISOString()}`);
  if ('decidedAt' in status) {
    line(`Decision: ${status.statusText}`, 12, true);
    if (status.authorizationNumber) line(`Authorization number: ${status.authorizationNumber}`);
    if (status.effectiveFrom) line(`Valid from ${status.effectiveFrom} to ${status.effectiveTo}`);
    for (const reason of status.denialReasons) line(`Reason: ${reason}`);
    for (const change of status.modifications) line(`Modification: ${change}`);
  }
  y -= 10;
  line('This letter was issued by a simulated payer for testing; it is not a real coverage decision.', 9);
  return pdf.save();
}
