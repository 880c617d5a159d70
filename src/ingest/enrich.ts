import { cleanText } from '../events/text.ts'

/**
 * Click-id parameters of ad networks, kept alongside every utm_* tag: Yandex (yclid, ysclid),
 * Google (gclid, gbraid, wbraid, dclid), Meta (fbclid), Microsoft (msclkid), TikTok (ttclid),
 * X (twclid), LinkedIn (li_fat_id), Mailchimp (mc_cid, mc_eid), Openstat (_openstat).
 */
export const CLICK_IDS = [
  'yclid', 'ysclid', 'gclid', 'gbraid', 'wbraid', 'dclid', 'fbclid', 'msclkid', 'ttclid', 'twclid',
  'li_fat_id', 'mc_cid', 'mc_eid', '_openstat',
] as const

const MAX_TAGS = 32
const MAX_TAG_LENGTH = 512

/** The referral tags of a landing page URL, or null when it carries none (or is not a URL). */
export function extractUtm(pageUrl: string | null | undefined): Record<string, string> | null {
  if (!pageUrl) return null
  let url: URL
  try {
    url = new URL(pageUrl)
  } catch {
    return null
  }
  const tags: Record<string, string> = {}
  let n = 0
  for (const [rawKey, value] of url.searchParams) {
    const key = rawKey.toLowerCase()
    const wanted = key.startsWith('utm_') || (CLICK_IDS as readonly string[]).includes(key)
    if (!wanted || value === '' || key in tags || n >= MAX_TAGS) continue
    tags[cleanText(key)] = cleanText(value.slice(0, MAX_TAG_LENGTH))
    n++
  }
  return n > 0 ? tags : null
}
