import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInOnConsentPage, startCallbackListener } from '../../helpers/authorization-browser.js';
import { placesLeft } from '../../helpers/booking.js';
import { type PhoneWithMail, phoneWithMail } from '../../helpers/browser.js';
import { claimedAgent } from '../../helpers/claim.js';
import { SESSIONS } from '../../helpers/fixtures.js';
import { holdPlace } from '../../helpers/holds.js';

// The pages agents send a person to, on a phone with JavaScript off: the consent page of the browser
// flow (signed out, then signed in) and a held place's booking page pass axe, and each does what it says.
const EMAIL = 'lea.dupont@example.org';
let phone: PhoneWithMail;

beforeAll(async () => {
  phone = await phoneWithMail();
});
afterAll(async () => {
  await phone?.close();
});

describe('the pages agents send a person to, on a phone, in Chromium', () => {
  it('the consent page: sign in by the emailed link, see who asks, approve', { timeout: 120_000 }, async () => {
    const { t, base, smtp, page, check } = phone;
    const callback = await startCallbackListener();
    try {
      const registered = await t.app.inject({
        method: 'POST',
        url: '/api/oauth/register',
        payload: {
          client_name: 'Hôte de test',
          redirect_uris: [callback.url],
          grant_types: ['authorization_code', 'refresh_token'],
          token_endpoint_auth_method: 'none',
        },
      });
      expect(registered.statusCode, registered.body).toBe(201);
      const authorize = new URL('/api/oauth/authorize', base);
      authorize.search = new URLSearchParams({
        response_type: 'code',
        client_id: registered.json().client_id,
        redirect_uri: callback.url,
        scope: 'read hold',
        state: 'etat-1',
        code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
        code_challenge_method: 'S256',
      }).toString();

      await page.goto(authorize.href);
      await page.waitForURL('**/agents/connecter?demande=*');
      expect(await page.getByRole('link', { name: 'Me connecter pour répondre' }).count()).toBe(1);
      await check('agent-consent-signed-out');

      await signInOnConsentPage(page, t.app, smtp, EMAIL);
      expect(await page.getByText(/Hôte de test/).count()).toBeGreaterThan(0);
      expect(await page.getByText(/non vérifié/).count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Autoriser' }).count()).toBe(1);
      await check('agent-consent');

      await page.getByRole('button', { name: 'Autoriser' }).click();
      await expect.poll(() => callback.received.length).toBe(1);
      const answer = callback.received[0] as URL;
      expect(answer.searchParams.get('state')).toBe('etat-1');
      expect(answer.searchParams.get('code')).toMatch(/\S{20,}/);
    } finally {
      await callback.close();
    }
  });

  it('a held place: the page says until when, and booking it takes no second place', { timeout: 120_000 }, async () => {
    const { t, page, check } = phone;
    const session = SESSIONS.stEtienneMar5.id;
    const agent = await claimedAgent(t.app, 'marc.petit@example.org', 'hold');
    const held = await holdPlace(t.app, agent.token, session);
    expect(held.statusCode, held.body).toBe(201);
    const { completeUrl } = held.json() as { completeUrl: string };
    const onSale = await placesLeft(t.app, session);

    await page.goto(completeUrl);
    expect(await page.getByText(/Une place de ce stage est mise de côté pour vous/).count()).toBe(1);
    await check('hold-page');

    await page.getByLabel('Prénom').fill('Marc');
    await page.getByLabel('Nom', { exact: true }).fill('Petit');
    await page.getByLabel(/Adresse e-mail/).fill('marc.petit@example.org');
    await page.getByLabel(/Téléphone mobile/).fill('06 12 34 56 78');
    await page.getByLabel('Permis probatoire', { exact: false }).check();
    await page.getByLabel(/J’ai pris connaissance des conditions du centre/).check();
    await page.getByRole('button', { name: 'Réserver ma place' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Votre réservation' }).count()).toBe(1);
    await check('hold-booked');
    expect(await placesLeft(t.app, session)).toBe(onSale);
  });
});
