/** The chat upload's file kinds by magic bytes, and its checks before any work, as pure functions. */
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { audioType, docFormat, imageType } from '../../../plugins/query-upload/file-kind.js'
import { checkUpload } from '../../../plugins/query-upload/upload-check.js'
import { GatewayError } from '../../../kernel/contract/errors.js'

const b = (...bytes: (number | string)[]) =>
  Buffer.concat(bytes.map((x) => (typeof x === 'string' ? Buffer.from(x, 'latin1') : Buffer.from([x]))))

test('images: PNG, JPEG, WebP and GIF by their signatures; nothing else', () => {
  assert.is(imageType(b(0x89, 'PNG\r\n\x1a\n', 0)), 'image/png')
  assert.is(imageType(b(0xff, 0xd8, 0xff, 0xe0)), 'image/jpeg')
  assert.is(imageType(b('RIFF', 0, 0, 0, 0, 'WEBPVP8 ')), 'image/webp')
  assert.is(imageType(b('GIF89a')), 'image/gif')
  assert.is(imageType(b('GIF87a')), 'image/gif')
  assert.is(imageType(b('RIFF', 0, 0, 0, 0, 'WAVEfmt ')), undefined)
  assert.is(imageType(b('<svg')), undefined)
  assert.is(imageType(Buffer.alloc(0)), undefined)
})

test('audio: WAV, FLAC, Ogg, MP3 (ID3 or a frame header); a WebP is not audio', () => {
  assert.is(audioType(b('RIFF', 0, 0, 0, 0, 'WAVEfmt ')), 'audio/wav')
  assert.is(audioType(b('fLaC')), 'audio/flac')
  assert.is(audioType(b('OggS')), 'audio/ogg')
  assert.is(audioType(b('ID3', 4)), 'audio/mpeg')
  assert.is(audioType(b(0xff, 0xfb, 0x90)), 'audio/mpeg')
  assert.is(audioType(b(0xff, 0xe0)), undefined, 'layer bits "reserved"')
  assert.is(audioType(b('RIFF', 0, 0, 0, 0, 'WEBPVP8 ')), undefined)
})

test('documents: a PDF by its signature whatever was declared; text/plain gives way to a telling extension', () => {
  assert.equal(docFormat(b('%PDF-1.7'), 'x.txt', 'text/plain'), { format: 'pdf', contentType: 'application/pdf' })
  assert.equal(docFormat(b('# t'), 'notes.md', 'text/plain'), { format: 'markdown', contentType: 'text/markdown' })
  assert.equal(docFormat(b('hi'), 'notes', 'text/plain'), { format: 'text', contentType: 'text/plain' })
  assert.equal(docFormat(b('<p>'), 'page.bin', 'text/html'), { format: 'html', contentType: 'text/html' })
  assert.equal(docFormat(b('<p>'), 'page.htm', 'application/octet-stream'), {
    format: 'html',
    contentType: 'text/html',
  })
  try {
    docFormat(b('x'), 'a.exe', 'application/octet-stream')
    assert.unreachable()
  } catch (err) {
    assert.instance(err, GatewayError)
    assert.is((err as GatewayError).status, 415)
    assert.match((err as GatewayError).message, /^file a\.exe in docs: cannot tell the format of "a\.exe"/)
  }
})

test('checkUpload: the first failing rule wins, each naming the file', () => {
  const limits = { maxFiles: 2, maxFileBytes: 10, maxTotalBytes: 15, ttlMs: 1000 }
  const png = b(0x89, 'PNG\r\n\x1a\n')
  const ok = checkUpload([{ field: 'images', filename: ' dot.png ', data: png }], limits)
  assert.equal(
    ok.map((f) => [f.name, f.kind, f.contentType]),
    [['dot.png', 'image', 'image/png']],
  )
  const status = (files: Parameters<typeof checkUpload>[0]) => {
    try {
      checkUpload(files, limits)
      return 0
    } catch (err) {
      return (err as GatewayError).status
    }
  }
  assert.is(status([1, 2, 3].map((i) => ({ field: 'docs', filename: `${i}.txt`, data: b('x') }))), 400)
  assert.is(status([{ field: 'docs', filename: 'big.txt', data: Buffer.alloc(11) }]), 413)
  assert.is(
    status([
      { field: 'docs', filename: 'a.txt', data: Buffer.alloc(8) },
      { field: 'docs', filename: 'b.txt', data: Buffer.alloc(8) },
    ]),
    413,
  )
  assert.is(status([{ field: 'docs', data: b('x') }]), 400)
  assert.is(status([{ field: 'images', filename: 'a.png', data: b('x') }]), 415)
})

test.run()
