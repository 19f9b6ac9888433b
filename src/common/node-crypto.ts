// node:crypto at its first use, not with the module that imports this: the module and the
// OpenSSL state behind it cost each process about 0.7 MB of memory, and most runs never need
// it (random names come from /dev/urandom, random-hex.ts; a checksum only with a drive history).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** node:crypto, loaded at the first call. */
export const nodeCrypto = (): typeof import('node:crypto') => require('node:crypto') as typeof import('node:crypto');
