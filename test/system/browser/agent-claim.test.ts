import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { type PhoneWithMail, phoneWithMail } from '../../helpers/browser.js';
import type { TestSmtpServer } from '../../helpers/smtp.js';

// An agent asks a person's consent (issue 26, the claim); the person answers on a phone,
// JavaScript off: the claim's page, the emailed sign-in and back, the code, the approval, then
// their list of agents and the withdrawal.
let phone: PhoneWithMail;
let t: TestApp;
let base: string;
let smtp: TestSmtpServer;
let page: Page;

beforeAll(async () => {
  phone = await phoneWithMail();
  ({ t, base, smtp, page } = phone);
});
afterAll(() => phone?.close());

const check = (name: string) => phone.check(name);

/** What an agent does: register, get a token, start a claim. */
async function agentStartsClaim(): Promise<{ claim_url: string; user_code: string; token: string; claim_id: string }> {
  const registered = await (
    await fetch(`${base}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Mon assistant permis' }),
    })
  ).json();
  const { access_token: token } = await (
    await fetch(`${base}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: registered.client_id,
        client_secret: registered.client_secret,
      }),
    })
  ).json();
  const claim = await (
    await fetch(`${base}/api/oauth/claim`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
  ).json();
  return { ...claim, token };
}

describe('a person answers an agent’s claim on a phone, in Chromium', () => {
  it('signs in from the claim’s page, types the code, approves, then withdraws it', { timeout: 120_000 }, async () => {
    const claim = await agentStartsClaim();
    await page.goto(claim.claim_url);
    await check('agent-claim-signed-out');
    await page.getByRole('link', { name: 'Me connecter pour répondre' }).click();
    await page.getByLabel('Adresse e-mail').fill('lea.petit@example.org');
    await page.getByRole('button', { name: 'Recevoir un lien de connexion' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Vérifiez vos e-mails' }).count()).toBe(1);
    await t.app.jobs.drain();
    const linkIn = () =>
      smtp.received.map((m) => /http:\/\/127\.0\.0\.1:\d+\/connexion\/lien\/\S+/.exec(m.text ?? '')?.[0]).find(Boolean);
    await expect.poll(linkIn).toBeDefined();
    await page.goto(linkIn() as string);
    await Promise.all([
      page.waitForURL('**/agents/autoriser?claim=*'),
      page.getByRole('button', { name: 'Me connecter' }).click(),
    ]);
    expect(await page.getByText(/n’est pas vérifié/).count()).toBe(1);
    expect(await page.getByText('payer quoi que ce soit').count()).toBe(1);
    await check('agent-claim-form');

    // A wrong code first: the field says so.
    await page.getByLabel('Le code que l’assistant vous a donné').fill('BBBB-BBBB');
    await page.getByRole('button', { name: 'Autoriser' }).click();
    await expect.poll(() => page.getByText('Ce code ne correspond pas').count()).toBe(1);
    await check('agent-claim-wrong-code');

    // The right one; the claim named no scope: both are asked, each ticked (the person may untick one).
    await page.getByLabel('Le code que l’assistant vous a donné').fill(claim.user_code);
    await expect.poll(() => page.getByLabel(/^Mettre une place de côté/).isChecked()).toBe(true);
    await expect.poll(() => page.getByLabel(/^Créer des alertes pour vous/).isChecked()).toBe(true);
    await Promise.all([page.waitForURL('**reponse=autorise'), page.getByRole('button', { name: 'Autoriser' }).click()]);
    await check('agent-claim-approved');
    const polled = await (
      await fetch(`${base}/api/oauth/claim/${claim.claim_id}`, { headers: { authorization: `Bearer ${claim.token}` } })
    ).json();
    expect(polled).toEqual({ claim_id: claim.claim_id, status: 'approved', scope: 'read hold alerts' });

    await page.getByRole('link', { name: 'Voir les assistants que vous avez autorisés' }).click();
    expect(await page.getByText('créer des alertes').count()).toBe(1);
    await check('agent-claim-list');
    await Promise.all([
      page.waitForURL('**/mon-espace/agents?retire=1'),
      page.getByRole('button', { name: /^Retirer l’autorisation/ }).click(),
    ]);
    await expect.poll(() => page.getByText('Autorisation retirée').count()).toBe(1);
    await check('agent-claim-revoked');
  });
});
