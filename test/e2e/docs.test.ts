// The documentation a plain clone carries (issue 19): every relative link of the markdown files
// resolves to a file of this repository (none outside it), and every #anchor to a heading of
// the file it names (GitHub's heading slugs).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./harness/worker";

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith(".") || entry.name === "node_modules" || entry.name === "dist")
      return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? markdownFiles(path) : entry.name.endsWith(".md") ? [path] : [];
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, "")
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .replace(/\s/g, "-");

function anchors(file: string): Set<string> {
  const text = readFileSync(file, "utf8").replace(/^```[\s\S]*?^```/gm, "");
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

describe("documentation links", () => {
  const files = markdownFiles(ROOT);
  it(`resolve inside the repository (${files.length} markdown files)`, () => {
    expect(files.map((f) => relative(ROOT, f))).toContain("README.md");
    const broken: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, "utf8").replace(/^```[\s\S]*?^```/gm, "");
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue; // https:, mailto:
        const [path, anchor] = target!.split("#");
        const resolved = path ? resolve(dirname(file), path) : file;
        const where = `${relative(ROOT, file)} → ${target}`;
        if (relative(ROOT, resolved).startsWith(".."))
          broken.push(`${where} (outside the repository)`);
        else if (!existsSync(resolved)) broken.push(`${where} (no such file)`);
        else if (anchor && resolved.endsWith(".md") && !anchors(resolved).has(anchor))
          broken.push(`${where} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
