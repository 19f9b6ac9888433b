// The manual is docs/, one page per topic, each short enough to read through: under 15 KiB.
// What a page outgrows (measurements, variants tried) goes to docs/design/, which it links.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const DOCS = path.resolve(import.meta.dirname, '../../docs');
const PAGE_LIMIT_BYTES = 15 * 1024;

describe('the manual', () => {
  it('has no page of 15 KiB or more', () => {
    const pages = readdirSync(DOCS).filter((name) => name.endsWith('.md'));
    expect(pages.length).toBeGreaterThan(20);
    const over = pages.map((name) => [name, statSync(path.join(DOCS, name)).size] as const).filter(([, size]) => size >= PAGE_LIMIT_BYTES);
    expect(over).toEqual([]);
  });

  it('links the design notes it leans on, and each of them exists', () => {
    const missing: string[] = [];
    for (const name of readdirSync(DOCS).filter((each) => each.endsWith('.md'))) {
      for (const [, link] of readFileSync(path.join(DOCS, name), 'utf8').matchAll(/\]\((design\/[^)#\s]+)/g)) {
        try {
          statSync(path.join(DOCS, link!));
        } catch {
          missing.push(`${name}: ${link}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
