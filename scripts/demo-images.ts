/**
 * Draws the demo store's pictures of its single products into assets/images/<slug>.svg: one flat
 * drawing per product on the same warm background as the variant pictures, so that every card of
 * the demo shop has a picture and none needs the network. Run again after changing a drawing:
 *   npx tsx scripts/demo-images.ts
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SHIRT = 'M70 30 50 38 20 70 40 92 55 80v95h90V80l15 12 20-22-30-32-20-8q-30 22-60 0z';
const JACKET = 'M68 30 48 38 22 74 38 150h22V84v86h80V84v66h22l16-76-26-36-20-8-32 14z';

/** A shirt-like garment in `fill`, outlined in `line`, with extra marks drawn on it. */
const garment = (path: string, fill: string, line: string, marks = '') =>
  `<path d="${path}" fill="${fill}" stroke="${line}" stroke-width="3" stroke-linejoin="round"/>${marks}`;

const DRAWINGS: Record<string, string> = {
  'oxford-shirt': garment(SHIRT, '#dfe7f1', '#6b7f99', '<path d="M70 30q30 22 60 0M100 52v120" fill="none" stroke="#6b7f99" stroke-width="3"/><circle cx="100" cy="80" r="3" fill="#6b7f99"/><circle cx="100" cy="110" r="3" fill="#6b7f99"/><circle cx="100" cy="140" r="3" fill="#6b7f99"/>'),
  'flannel-shirt': garment(SHIRT, '#b5443b', '#6e231d', '<path d="M55 100h90M55 130h90M55 160h90M80 60v115M120 60v115" stroke="#6e231d" stroke-width="4" opacity=".45"/><path d="M70 30q30 22 60 0M100 52v120" fill="none" stroke="#6e231d" stroke-width="3"/>'),
  'denim-shirt': garment(SHIRT, '#4a6a94', '#243a57', '<path d="M70 30q30 22 60 0M100 52v120" fill="none" stroke="#e0b86a" stroke-width="2" stroke-dasharray="4 3"/><rect x="62" y="78" width="24" height="20" rx="3" fill="none" stroke="#e0b86a" stroke-width="2"/><rect x="114" y="78" width="24" height="20" rx="3" fill="none" stroke="#e0b86a" stroke-width="2"/>'),
  'chambray-shirt': garment(SHIRT, '#9fb4cf', '#51698a', '<path d="M70 30q30 22 60 0M100 52v120" fill="none" stroke="#51698a" stroke-width="3"/><circle cx="100" cy="85" r="3" fill="#fff"/><circle cx="100" cy="115" r="3" fill="#fff"/><circle cx="100" cy="145" r="3" fill="#fff"/>'),
  'polo-shirt': garment('M72 32 50 40 24 66 42 88 56 78v97h88V78l14 10 18-22-26-26-22-8q-28 18-56 0z', '#3f7a5a', '#1f4430', '<path d="M72 32l14 22 14-10 14 10 14-22" fill="#2f6147" stroke="#1f4430" stroke-width="3" stroke-linejoin="round"/><path d="M100 44v30" stroke="#1f4430" stroke-width="3"/><circle cx="100" cy="58" r="2.5" fill="#fff"/><circle cx="100" cy="70" r="2.5" fill="#fff"/>'),
  'cotton-hoodie': garment('M70 46 48 54 22 120 42 128 56 96v82h88V96l14 32 20-8-26-66-22-8z', '#9aa0a6', '#4f555b', '<path d="M70 46q-4-30 30-34 34 4 30 34-30 16-60 0z" fill="#868c92" stroke="#4f555b" stroke-width="3"/><path d="M92 60v26M108 60v26" stroke="#f3f1ec" stroke-width="3"/><path d="M70 140h60v24H70z" fill="none" stroke="#4f555b" stroke-width="3"/>'),
  'rain-jacket': garment(JACKET, '#e3b23c', '#8a6412', '<path d="M100 44v126" stroke="#8a6412" stroke-width="4"/><path d="M68 30q32 30 64 0" fill="none" stroke="#8a6412" stroke-width="3"/><rect x="66" y="120" width="22" height="6" rx="3" fill="#8a6412"/><rect x="112" y="120" width="22" height="6" rx="3" fill="#8a6412"/>'),
  'chino-trousers': '<path d="M62 22h76l10 156h-34l-14-112-14 112H52z" fill="#c9b48f" stroke="#7d6a45" stroke-width="3" stroke-linejoin="round"/><path d="M62 36h76" stroke="#7d6a45" stroke-width="3"/><path d="M100 36v30" stroke="#7d6a45" stroke-width="3"/>',
  'running-shorts': '<path d="M48 56h104l12 84h-48l-16-36-16 36H36z" fill="#2f6db5" stroke="#173b66" stroke-width="3" stroke-linejoin="round"/><path d="M48 72h104" stroke="#173b66" stroke-width="3"/><path d="M40 120l22 4M160 120l-22 4" stroke="#f3f1ec" stroke-width="4"/>',
  'wool-socks': '<path d="M70 24h44v96l30 22q14 14 0 30-10 10-26 0l-42-30q-8-6-6-18z" fill="#c25b4a" stroke="#6e2b20" stroke-width="3" stroke-linejoin="round"/><path d="M70 40h44M70 52h44" stroke="#f3e3c8" stroke-width="5"/><path d="M70 96h44" stroke="#f3e3c8" stroke-width="5" stroke-dasharray="6 5"/>',
  'leather-belt': '<path d="M30 120q70-70 140-10" fill="none" stroke="#7a4a2a" stroke-width="20" stroke-linecap="round"/><rect x="22" y="104" width="34" height="34" rx="5" fill="none" stroke="#c8a24a" stroke-width="6"/><path d="M39 110v22" stroke="#c8a24a" stroke-width="4"/><circle cx="110" cy="82" r="3" fill="#3d2413"/><circle cx="128" cy="80" r="3" fill="#3d2413"/><circle cx="146" cy="83" r="3" fill="#3d2413"/>',
  'canvas-tote': '<path d="M70 70q0-40 30-40t30 40" fill="none" stroke="#7d6a45" stroke-width="6"/><path d="M46 70h108l-8 110H54z" fill="#e8dcc0" stroke="#7d6a45" stroke-width="3" stroke-linejoin="round"/><path d="M76 112h48v24H76z" fill="#c9b48f"/>',
  'beanie': '<path d="M40 130q0-80 60-80t60 80z" fill="#6c8a5c" stroke="#3a5030" stroke-width="3"/><rect x="36" y="124" width="128" height="30" rx="8" fill="#5a7a4b" stroke="#3a5030" stroke-width="3"/><path d="M56 128v22M76 128v22M96 128v22M116 128v22M136 128v22" stroke="#3a5030" stroke-width="2" opacity=".6"/><circle cx="100" cy="46" r="12" fill="#6c8a5c" stroke="#3a5030" stroke-width="3"/>',
  'backpack': '<path d="M78 40q0-18 22-18t22 18" fill="none" stroke="#2a3442" stroke-width="6"/><rect x="50" y="40" width="100" height="140" rx="26" fill="#44546a" stroke="#2a3442" stroke-width="3"/><rect x="66" y="112" width="68" height="50" rx="10" fill="#56687f" stroke="#2a3442" stroke-width="3"/><path d="M66 126h68" stroke="#2a3442" stroke-width="3"/><path d="M60 70q40 14 80 0" fill="none" stroke="#2a3442" stroke-width="3"/>',
  'wallet': '<rect x="34" y="62" width="132" height="86" rx="10" fill="#7a4a2a" stroke="#3d2413" stroke-width="3"/><path d="M118 84h48v42h-48a8 8 0 0 1-8-8V92a8 8 0 0 1 8-8z" fill="#8d5a37" stroke="#3d2413" stroke-width="3"/><circle cx="126" cy="105" r="5" fill="#c8a24a"/><path d="M44 72h64" stroke="#c59a6d" stroke-width="2" stroke-dasharray="4 3"/>',
  'linen-napkins': '<rect x="40" y="116" width="120" height="26" rx="3" fill="#d9cbb3" stroke="#8a7a5c" stroke-width="3"/><rect x="46" y="92" width="112" height="26" rx="3" fill="#c4b59a" stroke="#8a7a5c" stroke-width="3"/><rect x="52" y="68" width="104" height="26" rx="3" fill="#e6dccb" stroke="#8a7a5c" stroke-width="3"/><path d="M56 142h88" stroke="#8a7a5c" stroke-width="2" stroke-dasharray="3 3"/>',
  'scented-candle': '<path d="M100 34q-12 16-2 30 12 0 2-30z" fill="#e8a13a" stroke="#b36a12" stroke-width="2"/><path d="M100 62v14" stroke="#3a3a3a" stroke-width="3"/><rect x="58" y="76" width="84" height="96" rx="12" fill="#efe6d6" stroke="#8a7a5c" stroke-width="3"/><rect x="58" y="108" width="84" height="34" fill="#b9c7b0"/><path d="M58 108h84M58 142h84" stroke="#8a7a5c" stroke-width="2"/>',
  'throw-blanket': '<path d="M36 70h128v84H36z" fill="#c98a6b" stroke="#7a4a36" stroke-width="3"/><path d="M36 92h128M36 132h128" stroke="#f3e3c8" stroke-width="8"/><path d="M36 112h128" stroke="#7a4a36" stroke-width="4"/><path d="M36 154q64 18 128 0" fill="#b87657" stroke="#7a4a36" stroke-width="3"/><path d="M40 154v10M52 156v10M64 158v10M136 158v10M148 156v10M160 154v10" stroke="#7a4a36" stroke-width="2"/>',
  'teapot': '<path d="M150 96q26-6 30-30" fill="none" stroke="#3f6f73" stroke-width="8" stroke-linecap="round"/><path d="M50 100q-26 0-22 26t30 18" fill="none" stroke="#3f6f73" stroke-width="8"/><ellipse cx="100" cy="120" rx="56" ry="44" fill="#5b9a9f" stroke="#3f6f73" stroke-width="3"/><path d="M70 80q30-20 60 0z" fill="#4d8a8f" stroke="#3f6f73" stroke-width="3"/><circle cx="100" cy="66" r="7" fill="#4d8a8f" stroke="#3f6f73" stroke-width="3"/>',
  'cutting-board': '<path d="M48 44h104a14 14 0 0 1 14 14v96a14 14 0 0 1-14 14H48a14 14 0 0 1-14-14V58a14 14 0 0 1 14-14z" fill="#c8955b" stroke="#7d5425" stroke-width="3"/><circle cx="150" cy="64" r="8" fill="#f3f1ec" stroke="#7d5425" stroke-width="3"/><path d="M52 84q40 8 80-4M52 118q50 10 96-2M56 148q40 6 88-2" fill="none" stroke="#a87a45" stroke-width="2"/>',
  'desk-lamp': '<ellipse cx="76" cy="170" rx="40" ry="9" fill="#2f2f2f"/><path d="M76 166 104 100 70 58" fill="none" stroke="#2f2f2f" stroke-width="7" stroke-linecap="round" stroke-linejoin="round"/><path d="M52 70l40-38 24 32z" fill="#d9a441" stroke="#8a6412" stroke-width="3" stroke-linejoin="round"/><path d="M84 76q18 18 40 20" fill="none" stroke="#f0d78c" stroke-width="4" opacity=".8"/>',
  'plant-pot': '<path d="M100 104q-30-40-10-70 26 20 10 70zM100 104q10-46 48-50-4 40-48 50zM100 104q-22-30-54-28 8 32 54 28z" fill="#5f8f4e" stroke="#355a2a" stroke-width="3" stroke-linejoin="round"/><path d="M62 104h76l-10 70H72z" fill="#c4704f" stroke="#7a3e26" stroke-width="3" stroke-linejoin="round"/><rect x="56" y="98" width="88" height="14" rx="3" fill="#b5603f" stroke="#7a3e26" stroke-width="3"/>',
  'notebook': '<rect x="52" y="32" width="96" height="136" rx="6" fill="#2e4a62" stroke="#18293a" stroke-width="3"/><path d="M66 32v136" stroke="#18293a" stroke-width="3"/><path d="M132 32v136" stroke="#c94f3d" stroke-width="6"/><rect x="80" y="60" width="40" height="22" rx="2" fill="#f3f1ec"/>',
  'water-bottle': '<rect x="84" y="20" width="32" height="20" rx="4" fill="#3a3a3a"/><path d="M82 40h36v14q14 8 14 24v86a14 14 0 0 1-14 14H82a14 14 0 0 1-14-14V78q0-16 14-24z" fill="#6fa8b8" stroke="#36626e" stroke-width="3" stroke-linejoin="round"/><rect x="68" y="96" width="64" height="40" fill="#f3f1ec" opacity=".85"/>',
  'umbrella': '<path d="M24 104q76-90 152 0-19-12-38 0-19-12-38 0-19-12-38 0-19-12-38 0z" fill="#7b4a8c" stroke="#43254f" stroke-width="3" stroke-linejoin="round"/><path d="M100 34v126q0 16-14 16t-14-14" fill="none" stroke="#3a3a3a" stroke-width="6" stroke-linecap="round"/>',
  'old-raincoat': garment(JACKET, '#7b7f4a', '#44472a', '<path d="M100 44v126" stroke="#44472a" stroke-width="3"/><circle cx="90" cy="80" r="4" fill="#44472a"/><circle cx="90" cy="110" r="4" fill="#44472a"/><circle cx="90" cy="140" r="4" fill="#44472a"/><path d="M68 30q32 30 64 0" fill="none" stroke="#44472a" stroke-width="3"/>'),
};

export const DEMO_IMAGE_SLUGS = Object.keys(DRAWINGS);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [slug, drawing] of Object.entries(DRAWINGS)) {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 200" width="400" height="400"><rect width="200" height="200" fill="#f3f1ec"/>${drawing}</svg>\n`;
    writeFileSync(new URL(`../assets/images/${slug}.svg`, import.meta.url), svg);
  }
  console.log(`wrote ${DEMO_IMAGE_SLUGS.length} pictures to assets/images/`);
}
