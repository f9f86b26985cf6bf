// Packages used only by tests and benchmarks that ship no type declarations.
declare module 'autocannon' {
  const autocannon: (options: Record<string, unknown>) => Promise<any> & { stop?: () => void }
  export default autocannon
}
