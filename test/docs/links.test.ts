/**
 * The README and every page under docs/ stand on their own: each relative link resolves to a file
 * inside the repository (and its #anchor to a heading of that file), no link leaves through `../`
 * above the repository, and no page points at an outside document by name.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { ROOT } from '../helpers/app-harness.js'

function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(ROOT, 'docs', f))
  return [join(ROOT, 'README.md'), join(ROOT, 'SECURITY.md'), ...docs].filter((f) => existsSync(f))
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>()
  const seen = new Map<string, number>()
  for (const line of markdown.replace(/```[\s\S]*?```/g, '').split('\n')) {
    const m = /^#{1,6}\s+(.*)$/.exec(line)
    if (!m) continue
    const base = m[1]!.trim().toLowerCase().replace(/[`*_~]/g, '').replace(/[^\p{L}\p{N} -]/gu, '').replace(/ /g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n === 0 ? base : `${base}-${n}`)
  }
  return out
}

/** The link targets of a page (inline links and images), outside code blocks and code spans. */
function links(markdown: string): string[] {
  const text = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '')
  return [...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!)
}

describe('documentation links', () => {
  const files = markdownFiles()

  it('finds the pages', () => {
    assert.ok(files.length >= 10, `only ${files.length} pages`)
  })

  for (const file of files) {
    const name = relative(ROOT, file)
    it(`${name}: every relative link resolves inside the repository`, () => {
      const markdown = readFileSync(file, 'utf8')
      const problems: string[] = []
      for (const target of links(markdown)) {
        if (/^(https?:|mailto:)/i.test(target)) {
          problems.push(`${target}: the docs never link outside the repository`)
          continue
        }
        const [path, anchor] = target.split('#') as [string, string | undefined]
        const resolved = path === '' ? file : resolve(dirname(file), decodeURIComponent(path))
        if (relative(ROOT, resolved).startsWith('..')) {
          problems.push(`${target}: outside the repository`)
          continue
        }
        if (!existsSync(resolved)) {
          problems.push(`${target}: no such file`)
          continue
        }
        if (anchor && resolved.endsWith('.md') && statSync(resolved).isFile() && !anchors(readFileSync(resolved, 'utf8')).has(anchor)) {
          problems.push(`${target}: no heading #${anchor} in ${relative(ROOT, resolved)}`)
        }
      }
      if (/\bSPEC\.md\b|\bthe seed\b|\.\.\/shared\//.test(markdown)) problems.push('mentions a document outside the repository (SPEC.md, the seed, ../shared)')
      assert.deepEqual(problems, [])
    })
  }
})
