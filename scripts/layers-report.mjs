#!/usr/bin/env node
// Measures the dependency rule over src/ (tests excluded): import cycles (type-only imports
// included, since they tie the files' meaning together too) and imports that break the rule of
// scripts/eslint-rules/layers.js, allowlisted or not. `--list` prints them.
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { SRC, isTestFile, resolveSpecifier, srcPath, violation } from './eslint-rules/layers.js'

const list = process.argv.includes('--list')

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path, out)
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts') && !isTestFile(name)) out.push(path)
  }
  return out
}

/** Every import of `file`: `{ specifier, typeOnly }` (type-only imports and `import()` types included). */
function importsOf(file) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  const found = []
  const visit = (node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : []
      const typeOnly = Boolean(clause && (clause.isTypeOnly || (!clause.name && named.length > 0 && named.every((e) => e.isTypeOnly))))
      found.push({ specifier: node.moduleSpecifier.text, typeOnly })
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly })
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      found.push({ specifier: node.arguments[0].text, typeOnly: false })
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, typeOnly: true })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const files = walk(SRC)
const graph = new Map()
const broken = []
for (const file of files) {
  const from = srcPath(file)
  const targets = new Set()
  for (const { specifier, typeOnly } of importsOf(file)) {
    const to = resolveSpecifier(file, specifier)
    if (to !== null) targets.add(to)
    const why = violation(from, to, specifier)
    if (why) broken.push({ from, to, typeOnly, why })
  }
  graph.set(from, [...targets])
}

// Tarjan's strongly connected components: each component of more than one file is a cycle.
const index = new Map()
const low = new Map()
const stack = []
const onStack = new Set()
const cycles = []
let counter = 0
function connect(v) {
  index.set(v, counter)
  low.set(v, counter++)
  stack.push(v)
  onStack.add(v)
  for (const w of graph.get(v) ?? []) {
    if (!index.has(w)) {
      connect(w)
      low.set(v, Math.min(low.get(v), low.get(w)))
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)))
  }
  if (low.get(v) === index.get(v)) {
    const component = []
    let w
    do {
      w = stack.pop()
      onStack.delete(w)
      component.push(w)
    } while (w !== v)
    if (component.length > 1) cycles.push(component.sort())
  }
}
for (const v of graph.keys()) if (!index.has(v)) connect(v)

const upward = broken.filter((b) => /higher layer|same layer/.test(b.why))
console.log(`files: ${files.length}`)
console.log(`import cycles: ${cycles.length} (sizes ${cycles.map((c) => c.length).sort((a, b) => b - a).join(', ') || '-'})`)
console.log(`upward or sideways imports: ${upward.length} (${upward.filter((b) => !b.typeOnly).length} at run time)`)
console.log(`other breaks of the rule (features, client): ${broken.length - upward.length}`)
if (list) {
  for (const cycle of cycles) console.log(`\ncycle of ${cycle.length}:\n  ${cycle.join('\n  ')}`)
  console.log('')
  for (const b of broken) console.log(`${b.from} -> ${b.to}${b.typeOnly ? ' (type)' : ''}: ${b.why}`)
}
