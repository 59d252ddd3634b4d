import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { checkHostKey, fingerprintOf, hostKeyAlgorithms, keyTypeOf, parseKnownHosts } from '../../../src/remote/machine/ssh/ssh-known-hosts.js';

function blob(type: string, body = randomBytes(32)): Buffer {
  const name = Buffer.from(type, 'latin1');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(name.length);
  return Buffer.concat([length, name, body]);
}

function hashed(name: string): string {
  const salt = randomBytes(20);
  return `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`;
}

describe('ssh-known-hosts', () => {
  const ed = blob('ssh-ed25519');
  const rsa = blob('ssh-rsa');
  const other = blob('ssh-ed25519');
  const line = (hosts: string, key: Buffer): string => `${hosts} ${keyTypeOf(key)} ${key.toString('base64')}`;

  it('matches plain, [host]:port, wildcard and hashed entries', () => {
    const cases: Array<[string, string, number]> = [
      ['example.org,10.0.0.1', 'example.org', 22],
      ['[example.org]:2222', 'example.org', 2222],
      ['*.example.org', 'a.example.org', 22],
      [hashed('[example.org]:2222'), 'example.org', 2222],
      [hashed('example.org'), 'EXAMPLE.org', 22],
    ];
    for (const [hosts, host, port] of cases) {
      const entries = parseKnownHosts(`# comment\n\n${line(hosts, ed)}\n`);
      assert.deepEqual(checkHostKey(entries, host, port, ed), { status: 'known' }, hosts);
    }
  });

  it('does not match another port, a negated pattern or another host', () => {
    const entries = parseKnownHosts([line('example.org', ed), line('*.org,!evil.org', ed)].join('\n'));
    assert.equal(checkHostKey(entries, 'example.org', 2222, ed).status, 'unknown');
    assert.equal(checkHostKey(entries, 'evil.org', 22, ed).status, 'unknown');
    assert.equal(checkHostKey(entries, 'example.com', 22, ed).status, 'unknown');
  });

  it('reports a changed key of the same type, and other known types', () => {
    const entries = parseKnownHosts([line('example.org', other), line('rsa-only.org', rsa)].join('\n'));
    const changed = checkHostKey(entries, 'example.org', 22, ed);
    assert.equal(changed.status, 'changed');
    assert.equal(changed.status === 'changed' && changed.expected.line, 1);
    assert.deepEqual(checkHostKey(entries, 'rsa-only.org', 22, ed), { status: 'unknown', otherTypes: ['ssh-rsa'] });
  });

  it('refuses @revoked keys and skips @cert-authority lines and malformed lines', () => {
    const entries = parseKnownHosts(
      [
        `@revoked * ${keyTypeOf(ed)} ${ed.toString('base64')}`,
        `@cert-authority * ${keyTypeOf(other)} ${other.toString('base64')}`,
        'garbage',
        line('example.org', ed),
      ].join('\n'),
    );
    assert.equal(entries.length, 2);
    assert.equal(checkHostKey(entries, 'example.org', 22, ed).status, 'revoked');
  });

  it('puts the algorithms of known key types first', () => {
    const algorithms = hostKeyAlgorithms(parseKnownHosts(line('example.org', rsa)), 'example.org', 22);
    assert.deepEqual(algorithms.slice(0, 3), ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa']);
    assert.ok(algorithms.includes('ssh-ed25519'));
  });

  it('prints fingerprints the way ssh-keygen does', () => {
    assert.match(fingerprintOf(ed), /^SHA256:[A-Za-z0-9+/]{43}$/);
  });
});
