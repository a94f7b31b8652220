/**
 * A three-page PDF made with pdf-lib at test time (nothing binary is committed): each page
 * carries its own words, so a test can tell which page a chunk came from. `extraLines` adds
 * that many more sentences to each page, each naming the page's word (Alpha, Bravo, Charlie),
 * so that pages are long enough for chunks to start on each of them.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib'

export const PAGE_TEXTS = [
  ['Alpha harbour opens at dawn.', 'Boats wait in the outer basin.'],
  ['Bravo berths hold one vessel each.', 'Fees are paid at the office.'],
  ['Charlie signals use red and green flags.', 'Red means stop and green means go.'],
] as const

export const PAGE_WORDS = ['Alpha', 'Bravo', 'Charlie'] as const

const FILLER = [
  'keeps its log in the tower',
  'lists every arrival before noon',
  'asks each pilot to report the tide',
  'closes its gates when the wind rises',
  'marks the channel with lit buoys',
]

export async function threePagePdf(options: { extraLines?: number } = {}): Promise<Uint8Array> {
  const pdf = await PDFDocument.create()
  const font = await pdf.embedFont(StandardFonts.Helvetica)
  PAGE_TEXTS.forEach((texts, p) => {
    const page = pdf.addPage([595, 842])
    const extra = Array.from(
      { length: options.extraLines ?? 0 },
      (_, i) => `${PAGE_WORDS[p]} section ${i + 1} ${FILLER[i % FILLER.length]}.`,
    )
    // The short pages keep their first layout (wide gaps); long ones are packed to fit.
    const step = extra.length ? 20 : 40
    ;[...texts, ...extra].forEach((line, i) =>
      page.drawText(line, { x: 50, y: 780 - i * step, size: extra.length ? 12 : 14, font }),
    )
  })
  return pdf.save()
}
