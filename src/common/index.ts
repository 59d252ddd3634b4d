export {
  BerryError,
  CallTimeoutError,
  CancelledError,
  ConfigError,
  EnvVarMissingError,
  OAuthEndpointError,
  ProtocolError,
  ProtocolVersionError,
  SandboxUnavailableError,
  ServerStartError,
  TransportClosedError,
  isBerryError,
} from './errors.js';
export type { BerryErrorCode, BerryErrorOptions, SandboxUnavailableReason } from './errors.js';
export { abortable, abortPromise, onAbort, settlesWithin, sleep } from './abort.js';
export { SharedWork } from './shared-work.js';
export { closestFirst, nameList } from './closest-names.js';
