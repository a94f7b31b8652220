/**
 * A three-page PDF made with pdf-lib at test time (nothing binary is committed): each page
 * carries its own words, so a test can tell which page a chunk came from.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib'

export const PAGE_TEXTS = [
  ['Alpha harbour opens at dawn.', 'Boats wait in the outer basin.'],
  ['Bravo berths hold one vessel each.', 'Fees are paid at the office.'],
  ['Charlie signals use red and green flags.', 'Red means stop and green means go.'],
] as const

export async function threePagePdf(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create()
  const font = await pdf.embedFont(StandardFonts.Helvetica)
  for (const lines of PAGE_TEXTS) {
    const page = pdf.addPage([595, 842])
    lines.forEach((line, i) => page.drawText(line, { x: 50, y: 780 - i * 40, size: 14, font }))
  }
  return pdf.save()
}
