/**
 * @module testing/fake-hasher
 * A Hasher that stores `plain:<password>` and counts its calls: no threads, no cost. For unit
 * tests of code that checks passwords; never for an app.
 */
import { Hasher } from '../auth/hashing/hasher.js'

export class FakeHasher extends Hasher {
  calls = 0

  override async hash(password: string): Promise<string> {
    this.calls++
    return `plain:${password}`
  }

  override async verify(hash: string, password: string): Promise<boolean> {
    this.calls++
    return hash === `plain:${password}`
  }

  override async dummyVerify(): Promise<false> {
    this.calls++
    return false
  }

  override needsRehash(): boolean {
    return false
  }
}
