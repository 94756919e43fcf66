import { describe, expect, it } from 'vitest';
import { privateHostReason, splitProposedHosts } from './proposed-hosts';

describe('the proposed hosts an importer adds by itself', () => {
  it('leaves out loopback, private, link-local and special addresses in every spelling, and localhost', () => {
    const privateOnes = [
      '169.254.169.254',
      '127.0.0.1:6379',
      '10.0.0.5:8080',
      'localhost',
      'localhost:3000',
      'api.localhost',
      'LOCALHOST.',
      '[::1]',
      '[::1]:8080',
      '[fd00::5]',
      '[fe80::1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:a9fe:a9fe]',
      '[::]',
      '0.0.0.0',
      '0.0.0.0:80',
      '2130706433',
      '2130706433:8080',
      '0x7f000001',
      '0x7f.1',
      '0177.0.0.1',
      '127.1',
      '0xa9.0xfe.0xa9.0xfe',
      '192.168.1.20',
      '172.16.0.1',
      '100.64.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '192.0.2.10',
      '[2002:7f00:1::]',
      '[64:ff9b::a00:5]',
    ];
    for (const h of privateOnes) expect(privateHostReason(h), h).toEqual(expect.any(String));
    expect(privateHostReason('169.254.169.254')).toMatch(/link-local/);
    expect(privateHostReason('2130706433')).toMatch(/loopback/);
    expect(privateHostReason('[fd00::5]')).toMatch(/private-network/);
  });

  it('adds public names and public addresses; a name is judged when it is reached, not here', () => {
    for (const h of ['api.example.com', 'api.example.com:8443', '93.184.216.34', '1.1.1.1:443', '[2606:4700:4700::1111]', 'nas.lan', 'metadata.google.internal', '{tenant}.example.com']) {
      expect(privateHostReason(h), h).toBeUndefined();
    }
  });

  it('splits a list, each host once, in order', () => {
    expect(splitProposedHosts(['api.example.com', '127.0.0.1:6379', 'API.example.com', '8.8.8.8', '127.0.0.1:6379'])).toEqual({
      public: ['api.example.com', '8.8.8.8'],
      private: [{ host: '127.0.0.1:6379', why: expect.stringMatching(/loopback/) }],
    });
  });
});
