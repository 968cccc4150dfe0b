/**
 * What an upload is, judged by its bytes and never by a name or a header alone: the four formats
 * the dashboard takes, by their signatures, then decoded in full by sharp (a truncated or corrupt
 * file fails there). SVG is never taken: it is a document that can run scripts.
 */
import type Sharp from 'sharp';

// sharp brings libvips, about 7 MB of a process's resident memory: loaded at the first picture, so a
// process that never handles one (most of them, most of the time) never pays for it.
let loading: Promise<typeof Sharp> | undefined;
function loadSharp(): Promise<typeof Sharp> {
  return (loading ??= import('sharp').then((module) => module.default));
}

export const UPLOAD_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/avif'] as const;
export type UploadType = (typeof UPLOAD_TYPES)[number];
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/** Widths a picture is served at besides its own (`?w=`). */
export const WIDTHS = [160, 320, 640, 1280] as const;
/** Larger pictures are refused before they are decoded (a small file can claim a huge canvas). */
const MAX_PIXELS = 50_000_000;

/** The format a file's first bytes name, or undefined. */
export function sniff(bytes: Buffer): UploadType | 'image/svg+xml' | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  if (bytes.length >= 12 && bytes.toString('latin1', 4, 8) === 'ftyp' && ['avif', 'avis'].includes(bytes.toString('latin1', 8, 12))) return 'image/avif';
  const head = bytes.toString('utf8', 0, Math.min(bytes.length, 512)).trimStart().toLowerCase();
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg'))) return 'image/svg+xml';
  return undefined;
}

export type Judgement =
  | { ok: true; contentType: UploadType; width: number; height: number }
  | { ok: false; status: 400 | 415; detail: string };

/** Whether the bytes are a whole picture of the declared type. */
export async function judge(bytes: Buffer, declared: string): Promise<Judgement> {
  const type = declared.split(';')[0]!.trim().toLowerCase();
  if (!(UPLOAD_TYPES as readonly string[]).includes(type)) {
    return { ok: false, status: 415, detail: `Content-Type must be one of ${UPLOAD_TYPES.join(', ')}, with the picture as the body` };
  }
  const found = sniff(bytes);
  if (found === 'image/svg+xml') return { ok: false, status: 415, detail: 'the body is an SVG document; only JPEG, PNG, WebP and AVIF pictures are taken' };
  if (found === undefined) return { ok: false, status: 415, detail: `the body is not a JPEG, PNG, WebP or AVIF picture` };
  if (found !== type) return { ok: false, status: 415, detail: `the body is ${found}, not the ${type} its Content-Type says` };
  // Outside the try: a library that cannot load is the server's fault (500), not the picture's.
  const sharp = await loadSharp();
  try {
    const image = sharp(bytes, { limitInputPixels: MAX_PIXELS, failOn: 'warning' });
    const meta = await image.metadata();
    if (!meta.width || !meta.height) return { ok: false, status: 400, detail: 'the picture has no size' };
    // Decoding every pixel is what finds a truncated or corrupt file.
    await image.clone().resize(8, 8, { fit: 'inside' }).raw().toBuffer();
    return { ok: true, contentType: type as UploadType, width: meta.width, height: meta.height };
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0]!.slice(0, 200) : 'cannot be decoded';
    return { ok: false, status: 400, detail: `the picture cannot be read in full (truncated or corrupt): ${reason}` };
  }
}

/** A copy at most `width` wide, in the same format (never larger than the original). */
export async function resized(bytes: Buffer, contentType: UploadType, width: number): Promise<Buffer> {
  const sharp = await loadSharp();
  const image = sharp(bytes, { limitInputPixels: MAX_PIXELS }).rotate().resize({ width, withoutEnlargement: true });
  switch (contentType) {
    case 'image/jpeg':
      return image.jpeg({ quality: 82, mozjpeg: true }).toBuffer();
    case 'image/png':
      return image.png().toBuffer();
    case 'image/webp':
      return image.webp({ quality: 80 }).toBuffer();
    case 'image/avif':
      return image.avif({ quality: 55, effort: 2 }).toBuffer();
  }
}
