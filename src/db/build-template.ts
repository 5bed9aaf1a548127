/**
 * `npm run build`'s last step (and so `npm install`'s): makes the embedded database's template
 * (pglite-template.ts) unless the one in dist/ is current. Prints what it did and how long it took.
 */
import { buildPgliteTemplate, TEMPLATE_DIR } from './pglite-template.js';

const started = performance.now();
const built = await buildPgliteTemplate();
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(
  built
    ? `Built the embedded database's template in ${TEMPLATE_DIR} (${seconds} s).`
    : `The embedded database's template in ${TEMPLATE_DIR} is current.`,
);
