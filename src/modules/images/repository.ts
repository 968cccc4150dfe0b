/** Uploaded pictures' SQL (the `images` table). */
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';

export interface ImageRow {
  id: string;
  contentType: string;
  width: number;
  height: number;
  bytes: number;
  createdAt: Date | string;
}

export async function insertImage(tx: Executor, store: string, image: { contentType: string; width: number; height: number; data: Buffer }): Promise<ImageRow> {
  const [row] = await queryRows<ImageRow>(
    tx,
    sql`insert into images (store, content_type, width, height, bytes, data)
        values (${store}, ${image.contentType}, ${image.width}, ${image.height}, ${image.data.length}, ${image.data})
        returning id, content_type as "contentType", width, height, bytes, created_at as "createdAt"`,
  );
  return row!;
}

export async function findImageData(db: Executor, store: string, id: string): Promise<{ contentType: string; data: Buffer } | undefined> {
  const [row] = await queryRows<{ contentType: string; data: Uint8Array }>(db, sql`select content_type as "contentType", data from images where store = ${store} and id = ${id}`);
  return row ? { contentType: row.contentType, data: Buffer.from(row.data.buffer, row.data.byteOffset, row.data.byteLength) } : undefined;
}
