/**
 * @module support/duration
 * Minutes as people write them in e-mails and pages: `1440` → "24 hours", `10080` → "7 days",
 * `90` → "1 hour and 30 minutes", `0.5` → "30 seconds". Whole days are named as days from two
 * days on (a day-long link reads better as "24 hours"); at most two units, the larger first.
 */

function unit(n: number, name: string): string {
  return `${n} ${name}${n === 1 ? '' : 's'}`
}

/** `minutes` in words; null, negative or not a number: ''. */
export function humanizeMinutes(minutes: unknown): string {
  const value = typeof minutes === 'string' && minutes.trim() !== '' ? Number(minutes) : minutes
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return ''
  const seconds = Math.round(value * 60)
  if (seconds < 60) return unit(seconds, 'second')
  const totalMinutes = Math.round(seconds / 60)
  const days = Math.floor(totalMinutes / 1440)
  const hours = Math.floor((totalMinutes % 1440) / 60)
  const mins = totalMinutes % 60
  if (days >= 2) {
    return hours ? `${unit(days, 'day')} and ${unit(hours, 'hour')}` : unit(days, 'day')
  }
  const allHours = Math.floor(totalMinutes / 60)
  if (allHours === 0) return unit(mins, 'minute')
  return mins ? `${unit(allHours, 'hour')} and ${unit(mins, 'minute')}` : unit(allHours, 'hour')
}
