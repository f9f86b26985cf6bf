/**
 * A code of the previous TOTP step is accepted only while the server is still in the step it was
 * made in (the window is one step either side). A test that enrols with the previous step's code,
 * to keep the current one for a later challenge, waits here when the step is about to end, so a
 * slow request cannot carry the code out of the window.
 */
export async function clearOfStepEdge(marginMs = 4_000, periodMs = 30_000): Promise<void> {
  const left = periodMs - (Date.now() % periodMs)
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50))
}
