/**
 * Who a confined server is on the machine. As root, bwrap sets the sandbox up as root (it must
 * reach sources such as /root/...: bubblewrap resolves even `--bind-fd` through the path, with the
 * caller's rights) and keeps only the capabilities to change uid; setpriv then drops the server to
 * host uid and gid 65534 with no groups and no capabilities, so it owns nothing on the host. As
 * an ordinary user, bwrap puts the server in a user namespace as uid and gid 65534 there; its host
 * uid stays the user's (changing it takes privilege).
 */
import { CONFINED_ID } from './sandbox-policy.js';

export type SandboxIdentity = { readonly kind: 'root'; readonly setpriv: string } | { readonly kind: 'user' };

/** bwrap's arguments for the identity (namespaces and capabilities). */
export function identityArgs(identity: SandboxIdentity['kind']): readonly string[] {
  return identity === 'root' ? ROOT_ARGS : USER_ARGS;
}

/** What runs the server's command inside the sandbox, before the command itself. */
export function commandPrefix(identity: SandboxIdentity): readonly string[] {
  return identity.kind === 'root' ? [identity.setpriv, ...DROP_ARGS] : [];
}

const ID = String(CONFINED_ID);
// What bwrap's last step and setpriv need, all gone once setpriv drops the uid: SETPCAP empties the
// bounding set, DAC_READ_SEARCH lets bwrap enter a private home that is uid 65534's (mode 0700).
const ROOT_ARGS = ['--cap-drop', 'ALL', ...['CAP_SETUID', 'CAP_SETGID', 'CAP_SETPCAP', 'CAP_DAC_READ_SEARCH'].flatMap((cap) => ['--cap-add', cap])] as const;
const USER_ARGS = ['--unshare-user', '--uid', ID, '--gid', ID, '--cap-drop', 'ALL'] as const;
export const DROP_ARGS = [`--reuid=${ID}`, `--regid=${ID}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--'] as const;
