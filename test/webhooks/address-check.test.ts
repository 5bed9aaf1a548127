import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../src/webhooks/address-check.js';
import { urlRefusal } from '../../src/webhooks/send.js';

describe('the webhook address check', () => {
  it.each([
    ['8.8.8.8', true],
    ['1.1.1.1', true],
    ['2606:4700:4700::1111', true],
    ['2a00:1450:4007:80f::200e', true],
    ['::ffff:8.8.8.8', true],
    ['127.0.0.1', false],
    ['127.255.0.9', false],
    ['0.0.0.0', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['192.168.1.1', false],
    ['100.64.0.1', false],
    ['169.254.169.254', false],
    ['224.0.0.1', false],
    ['239.255.255.250', false],
    ['255.255.255.255', false],
    ['198.18.0.1', false],
    ['::', false],
    ['::1', false],
    ['[::1]', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:169.254.169.254', false],
    ['0:0:0:0:0:ffff:7f00:1', false],
    ['::127.0.0.1', false],
    ['fe80::1', false],
    ['fe80::1%eth0', false],
    ['fc00::1', false],
    ['fd12:3456:789a::1', false],
    ['ff02::1', false],
    ['64:ff9b::a00:1', false],
    ['2002:7f00:1::', false],
    ['2001:db8::1', false],
    ['localhost', false],
    ['not an address', false],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it('refuses http, credentials and literal private addresses unless private addresses are allowed', () => {
    const refused = (url: string, allow = false) => urlRefusal(new URL(url), allow);
    expect(refused('https://hooks.example.com/in')).toBeUndefined();
    expect(refused('http://hooks.example.com/in')).toMatch(/https/);
    expect(refused('https://127.0.0.1/in')).toMatch(/public internet/);
    expect(refused('https://[::1]/in')).toMatch(/public internet/);
    expect(refused('https://[::ffff:10.0.0.1]/in')).toMatch(/public internet/);
    expect(refused('https://localhost/in')).toMatch(/public internet/);
    expect(refused('https://user:pw@hooks.example.com/in')).toMatch(/password/);
    expect(refused('ftp://hooks.example.com/in', true)).toMatch(/http/);
    expect(refused('http://127.0.0.1:8080/in', true)).toBeUndefined();
  });
});
