export const SESSION_HINT =
  'sshd allows MaxSessions (default 10) sessions per connection; each running process, the SFTP session and the signal session hold one';
export const FORWARD_HINT = 'the server may forbid forwarding (AllowTcpForwarding)';

/** A refused channel: `code` follows Node's socket codes where the server's reason allows. */
export function channelError(error: Error, failure: string, hint: string): Error {
  const reason = error.message.replace(/^\(SSH\) Channel open failure: /, '');
  let code = 'ERR_SSH_CHANNEL_OPEN';
  if (/refused/i.test(reason)) code = 'ECONNREFUSED';
  else if (/name resolution|not known|nodename|no address/i.test(reason)) code = 'ENOTFOUND';
  else if (/no route|unreachable/i.test(reason)) code = 'EHOSTUNREACH';
  // OpenSSH says only "open failed" when it refuses a session or a forwarding.
  const explained = /open failed|prohibited/i.test(reason) ? `${reason} (${hint})` : reason;
  return Object.assign(new Error(`${failure}: ${explained}`, { cause: error }), { code });
}
