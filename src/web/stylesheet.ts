import { createHash } from 'node:crypto';

/*
 * The site's one stylesheet, kept in code so that it ships with the compiled service without an
 * asset-copying step. Served under a name carrying its hash, so browsers may keep it for a year.
 * Mobile first: one column, large tap targets; wider screens get a little more room.
 * Colours meet WCAG AA contrast on their backgrounds (checked by axe in the browser tests).
 */
const CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;font-size:1.0625rem;line-height:1.5;color:#1b1b1b;background:#f6f6f4}
a{color:#0b4f9c;text-underline-offset:.15em}
a:hover{color:#062f5f}
:focus-visible{outline:3px solid #b34700;outline-offset:2px}
.skip{position:absolute;left:-9999px;top:0;background:#fff;padding:.5rem 1rem;z-index:10}
.skip:focus{left:.5rem;top:.5rem}
header.site{background:#0b3a6e;color:#fff}
header.site .bar{max-width:52rem;margin:0 auto;padding:.75rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;align-items:center;justify-content:space-between}
header.site a{color:#fff;text-decoration:none}
header.site a:hover{text-decoration:underline}
header.site .brand{font-weight:700;font-size:1.15rem}
header.site nav ul{list-style:none;margin:0;padding:0;display:flex;gap:1rem}
header.site :focus-visible{outline-color:#ffd27a}
main{max-width:52rem;margin:0 auto;padding:1rem}
h1{font-size:1.6rem;line-height:1.25;margin:.5rem 0 1rem}
h2{font-size:1.3rem;margin:1.75rem 0 .75rem}
h3{font-size:1.1rem;margin:0 0 .25rem}
.lead{font-size:1.1rem}
.card{background:#fff;border:1px solid #d4d4d0;border-radius:.5rem;padding:1rem;margin:0 0 1rem}
.card>h2:first-child,.card>h3:first-child{margin-top:0}
form.search{display:grid;gap:.9rem}
form.search .row{display:grid;gap:.9rem}
label{display:block;font-weight:600;margin-bottom:.25rem}
.hint{display:block;font-weight:400;color:#4a4a4a;font-size:.95rem}
input[type=text],input[type=email],input[type=url],input[type=tel],input[type=date],input[type=number],input[type=time],input[type=file],input[type=search],textarea,select{width:100%;font:inherit;padding:.6rem .65rem;border:1px solid #6b6b6b;border-radius:.35rem;background:#fff;color:#1b1b1b;min-height:2.75rem}
.check{display:flex;gap:.5rem;align-items:center;font-weight:400}
.check input{width:1.35rem;height:1.35rem;margin:0}
.check label{margin:0;font-weight:400}
button,.button{display:inline-block;font:inherit;font-weight:700;padding:.7rem 1.2rem;border:0;border-radius:.35rem;background:#0b4f9c;color:#fff;cursor:pointer;text-decoration:none;min-height:2.75rem}
button:hover,.button:hover{background:#062f5f;color:#fff}
.errors{border:2px solid #b00020;background:#fff5f5;color:#1b1b1b;padding:.75rem 1rem;border-radius:.5rem;margin:0 0 1rem}
.errors h2,.errors h3{margin:0 0 .5rem;font-size:1.1rem;color:#8a0019}
.errors p{margin:0}
.field-error{color:#8a0019;font-weight:600;display:block;margin-top:.25rem}
[aria-invalid=true]{border-color:#b00020;border-width:2px}
ol.sessions,ul.plain{list-style:none;margin:0;padding:0}
.session{background:#fff;border:1px solid #d4d4d0;border-radius:.5rem;padding:.85rem 1rem;margin:0 0 .75rem}
.session h3 a{text-decoration:none}
.session h3 a:hover{text-decoration:underline}
.session p{margin:.15rem 0}
.meta{display:flex;flex-wrap:wrap;gap:.35rem 1rem;align-items:center;margin-top:.4rem}
.price{font-weight:700;font-size:1.1rem}
.places{display:inline-block;padding:.1rem .55rem;border-radius:1rem;background:#e3efe3;color:#14532d;font-weight:600;font-size:.95rem}
.places.few{background:#fff1d6;color:#6b3a00}
.places.full{background:#ececec;color:#3d3d3d}
.notice{border-left:4px solid #b34700;background:#fff8ef;padding:.75rem 1rem;margin:0 0 1rem}
.pager{display:flex;justify-content:space-between;gap:1rem;margin:1rem 0}
dl.facts{display:grid;grid-template-columns:1fr;gap:.1rem .75rem;margin:0}
dl.facts dt{font-weight:600;color:#3d3d3d}
dl.facts dd{margin:0 0 .5rem}
.cols{columns:2 9rem;column-gap:1.5rem;padding-left:1.1rem;font-size:.95rem}
.cols li{break-inside:avoid;margin-bottom:.35rem}
.article-body{background:#fff;border:1px solid #d4d4d0;border-radius:.5rem;padding:.5rem 1.1rem}
.article-body blockquote{border-left:3px solid #8a8a8a;margin:1rem 0;padding:0 1rem;color:#3d3d3d}
.article-body table{border-collapse:collapse;width:100%;display:block;overflow-x:auto}
.article-body th,.article-body td{border:1px solid #c4c4c0;padding:.35rem .5rem;text-align:left}
.article-body code{background:#f0f0ee;padding:0 .2rem;border-radius:.2rem}
footer.site{max-width:52rem;margin:2rem auto 0;padding:1rem;border-top:1px solid #d4d4d0;color:#3d3d3d;font-size:.95rem}
form.booking,form.area-form{display:grid;gap:.9rem}
form.booking .row{display:grid;gap:.9rem}
form.booking fieldset,form.area-form fieldset{border:1px solid #d4d4d0;border-radius:.35rem;margin:0;padding:.5rem .85rem .75rem}
form.booking fieldset[aria-invalid=true],form.area-form fieldset[aria-invalid=true]{border-color:#b00020;border-width:2px}
form.booking legend,form.area-form legend{font-weight:600;padding:0 .25rem}
form.booking .check,form.area-form .check{align-items:flex-start;margin:.45rem 0}
form.booking .check input,form.area-form .check input{flex:none;margin-top:.1rem}
.hp{position:absolute;left:-10000px;top:auto;width:1px;height:1px;overflow:hidden}
.reference{font-size:1.2rem;margin:0 0 .5rem}
.reference strong{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:1.45rem;letter-spacing:.06em;white-space:nowrap}
.status{font-weight:700;margin:0 0 .5rem}
.status.cancelled{color:#8a0019}
button.danger{background:#8a0019}
button.danger:hover{background:#5c0011}
form.inline{display:inline}
.area-sessions details{margin-top:.75rem}
button.link{background:none;color:#0b4f8a;text-decoration:underline;padding:0;min-height:auto;font-weight:400}
.area-sessions{list-style:none;padding:0}
.area-sessions .session.risk{border-left:4px solid #b34700}
.area-sessions button{min-width:6.5rem;min-height:2.75rem}
.break{overflow-wrap:anywhere}
table.deliveries{border-collapse:collapse;display:block;overflow-x:auto;margin:0 0 .75rem}
table.deliveries th,table.deliveries td{text-align:left;padding:.25rem .5rem .25rem 0;vertical-align:top}
table.sheet{border-collapse:collapse;width:100%;margin:0 0 1rem;font-size:.9rem;overflow-wrap:anywhere}
table.sheet th,table.sheet td{border:1px solid #6b6b6b;padding:.35rem .5rem;text-align:left;vertical-align:top}
table.sheet td.sign{min-width:3rem;height:2.75rem}
@media print{header.site,footer.site,.skip,.no-print{display:none}body{background:#fff}table.sheet{font-size:10pt}table.sheet tr{break-inside:avoid}@page{size:landscape;margin:1cm}}
.visually-hidden{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
@media (min-width:40rem){
  form.search .row,form.booking .row{grid-template-columns:1fr 1fr}
  dl.facts{grid-template-columns:minmax(9rem,auto) 1fr}
  dl.facts dd{margin:0 0 .35rem}
  h1{font-size:1.9rem}
}
`.trim();

export const STYLESHEET = Buffer.from(CSS);
/** The stylesheet's path, changing whenever its content does. */
export const STYLESHEET_PATH = `/assets/site-${createHash('sha256').update(STYLESHEET).digest('hex').slice(0, 12)}.css`;
