import type { SubmissionPacket, SubmissionPreviewRenderer } from '@prior-auth/domain';
import { PDFDocument, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';

const PAGE = { width: 612, height: 792, margin: 54 } as const;
const SIZE = { title: 16, heading: 12, text: 10 } as const;
const LINE = 14;

/**
 * The standard fonts encode WinAnsi only: anything else (arrows, CJK, emoji) would make drawing throw, so it
 * is shown as `?`. Control characters become spaces.
 */
const printable = (text: string): string =>
  Array.from(text, (char) => {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x20 || code === 0x7f) return ' ';
    return code <= 0x7e || (code >= 0xa0 && code <= 0xff) ? char : '?';
  }).join('');

/**
 * The submission preview as a PDF (decision 0032): the case, every question by its text with its answers, and
 * the attachment list. Text is drawn with a standard font, so it stays extractable.
 */
export class PdfSubmissionPreviewRenderer implements SubmissionPreviewRenderer {
  async renderPdf(packet: SubmissionPacket): Promise<Uint8Array> {
    const doc = await PDFDocument.create();
    doc.setTitle(`Submission preview ${packet.authorizationId}`);
    doc.setProducer('prior-authorization service');
    doc.setCreationDate(packet.renderedAt);
    doc.setModificationDate(packet.renderedAt);
    const regular = await doc.embedFont(StandardFonts.Helvetica);
    const bold = await doc.embedFont(StandardFonts.HelveticaBold);
    const writer = new PageWriter(doc, regular);

    writer.line('Prior authorization - submission preview', bold, SIZE.title);
    writer.gap();
    writer.line(`Authorization: ${packet.authorizationId}`);
    writer.line(`Payer: ${packet.payerName}`);
    writer.line(`Provider NPI: ${packet.providerNpi}`);
    writer.line(`Service: ${packet.service}`);
    writer.line(`Questionnaire: ${packet.questionnaireTitle}`);
    writer.line(
      `Answers version ${packet.questionnaireResponseVersion}, attachments version ${packet.attachmentVersion}`,
    );
    writer.gap();
    writer.line('Answers', bold, SIZE.heading);
    for (const answer of packet.answers) {
      writer.line(answer.question, bold);
      writer.line(
        answer.values.length === 0 ? '(not answered)' : answer.values.join('; '),
        regular,
        SIZE.text,
        12,
      );
    }
    writer.gap();
    writer.line('Attachments', bold, SIZE.heading);
    if (packet.attachments.length === 0) writer.line('(none)');
    for (const attachment of packet.attachments) {
      writer.line(
        `${attachment.label} - ${attachment.documentTypes.join(', ')} (file ${attachment.fileId})`,
        regular,
        SIZE.text,
        12,
      );
    }
    return doc.save();
  }
}

/** Draws wrapped lines top to bottom, starting a new page when one is full. */
class PageWriter {
  private page: PDFPage;
  private y = 0;

  constructor(
    private readonly doc: PDFDocument,
    private readonly font: PDFFont,
  ) {
    this.page = this.newPage();
  }

  line(text: string, font: PDFFont = this.font, size: number = SIZE.text, indent = 0): void {
    const width = PAGE.width - 2 * PAGE.margin - indent;
    for (const row of this.wrap(printable(text), font, size, width)) {
      if (this.y < PAGE.margin + LINE) this.page = this.newPage();
      this.page.drawText(row, { x: PAGE.margin + indent, y: this.y, size, font });
      this.y -= size > SIZE.text ? LINE + 4 : LINE;
    }
  }

  gap(): void {
    this.y -= LINE / 2;
  }

  private newPage(): PDFPage {
    const page = this.doc.addPage([PAGE.width, PAGE.height]);
    this.y = PAGE.height - PAGE.margin;
    return page;
  }

  /** Greedy word wrap; a single word wider than the line is cut. */
  private wrap(text: string, font: PDFFont, size: number, width: number): string[] {
    const rows: string[] = [];
    let current = '';
    for (const word of text.split(/\s+/).filter((w) => w !== '')) {
      const candidate = current === '' ? word : `${current} ${word}`;
      if (font.widthOfTextAtSize(candidate, size) <= width) {
        current = candidate;
        continue;
      }
      if (current !== '') rows.push(current);
      current = word;
      while (font.widthOfTextAtSize(current, size) > width && current.length > 1) {
        let cut = current.length - 1;
        while (cut > 1 && font.widthOfTextAtSize(current.slice(0, cut), size) > width) cut -= 1;
        rows.push(current.slice(0, cut));
        current = current.slice(cut);
      }
    }
    rows.push(current);
    return rows;
  }
}
