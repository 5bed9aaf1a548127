/** Waits until `ok` holds, checking every 10 ms; throws past `ms`. */
export async function until(ok: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`not reached within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
