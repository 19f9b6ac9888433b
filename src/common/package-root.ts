// The package's root: the folder above this module that holds package.json. Walked up to, not
// counted, because the module runs from several depths: src/common/ (vitest), dist/bundle/
// (the package), dist-dev/src/common/ (the development scripts, compiled apart).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function rootAbove(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

export const PACKAGE_ROOT = rootAbove(path.dirname(fileURLToPath(import.meta.url)));
