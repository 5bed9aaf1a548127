import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { type PhoneWithMail, phoneWithMail } from '../../helpers/browser.js';
import { SESSIONS } from '../../helpers/fixtures.js';
import type { TestSmtpServer } from '../../helpers/smtp.js';

// A person on a phone, JavaScript off, finds a full session, asks to be told when a place frees
// up, and confirms from the email; then stops the alert from the email's link.
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

describe('"Prévenez-moi" on a phone, in Chromium', () => {
  it('asks on a full session’s page, confirms from the email, and stops from its link', {
    timeout: 120_000,
  }, async () => {
    await page.goto(`${base}/stages/${SESSIONS.lyonApr2Full.id}`);
    await expect.poll(() => page.getByRole('heading', { name: 'Prévenez-moi si une place se libère' }).count()).toBe(1);
    await check('alert-full-session');
    await page.getByLabel('Adresse e-mail').fill('pas-une-adresse');
    await page.getByRole('button', { name: 'Me prévenir' }).click();
    await expect.poll(() => page.getByText('Indiquez une adresse e-mail complète').count()).toBe(1);
    await check('alert-form-error');
    await page.getByLabel('Adresse e-mail').fill('morgane@example.org');
    await page.getByRole('button', { name: 'Me prévenir' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Confirmez votre alerte' }).count()).toBe(1);
    await check('alert-sent');

    await t.app.jobs.drain();
    const link = (path: string) =>
      smtp.received
        .map((m) => new RegExp(`http://127\\.0\\.0\\.1:\\d+${path}[A-Za-z0-9_-]{22}`).exec(m.text)?.[0])
        .find((l) => l !== undefined);
    await expect.poll(() => link('/alertes/confirmer/')).toBeDefined();
    await page.goto(link('/alertes/confirmer/') as string);
    await check('alert-confirm');
    await page.getByRole('button', { name: 'Activer l’alerte' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Votre alerte est active' }).count()).toBe(1);
    await check('alert-confirmed');

    await page.goto(link('/alertes/arret/') as string);
    await check('alert-stop');
    await page.getByRole('button', { name: 'Arrêter l’alerte' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Alerte arrêtée' }).count()).toBe(1);
    await check('alert-stopped');
  });
});
