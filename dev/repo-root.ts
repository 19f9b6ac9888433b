// The repository's root, for the development scripts. Found by walking up to the folder that
// holds package.json, so that it is the same whether a module runs from its source under dev/
// (as the tests import it) or compiled under dist-dev/dev/ (as npm runs it).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function rootAbove(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

export const REPO_ROOT = rootAbove(path.dirname(fileURLToPath(import.meta.url)));
