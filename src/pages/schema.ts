import Type, { type Static } from 'typebox'
import { Nullable, pageFields, pageQuery, periodQuery, ref, StringEnum } from '../util/schema.ts'
import { MAX_PAGE_LENGTH } from './limits.ts'
import { VITAL_STEPS } from '../../common/vitals.ts'

export const VitalSummarySchema = Type.Object({
  p75: Nullable(Type.Number({
    description: `The 75th percentile (nearest rank) of the values counted, read from buckets ${VITAL_STEPS.join(', ')} times a power `
      + 'of ten: at most one step (20%) above the exact one, never below, rated as it is. Milliseconds; CLS a unitless score. Null when none was counted.',
  })),
  good: Type.Integer({ description: 'Values rated good (web.dev\'s thresholds): exact.' }),
  needsImprovement: Type.Integer({ description: 'Values rated needs-improvement: exact.' }),
  poor: Type.Integer({ description: 'Values rated poor: exact.' }),
}, { $id: 'VitalSummary', title: 'VitalSummary', additionalProperties: false, description: 'One Core Web Vital of a page over the period.' })

// A description beside a $ref is dropped from the document: allOf keeps both.
const vital = (name: string) => Type.Unsafe<Static<typeof VitalSummarySchema>>({
  allOf: [ref(VitalSummarySchema)], description: `${name} of the page's WEB_VITAL events.`,
})

export const PageReportSchema = Type.Object({
  url: Type.String({
    description: 'The page\'s template: its URL with ids as `:id` (as HTTP issues have them), origin kept, query and fragment '
      + `dropped, cut to ${MAX_PAGE_LENGTH} characters. Visitor-supplied text: escape it when displaying.`,
  }),
  views: Type.Integer({ description: 'NAVIGATION events: page loads and SPA route changes (our SDK), Sentry navigation breadcrumbs.' }),
  lcp: vital('Largest Contentful Paint'),
  inp: vital('Interaction to Next Paint'),
  cls: vital('Cumulative Layout Shift'),
  fcp: vital('First Contentful Paint'),
  ttfb: vital('Time to First Byte'),
  rageClicks: Type.Integer({ description: 'RAGE_CLICK events on the page.' }),
  deadClicks: Type.Integer({ description: 'DEAD_CLICK events on the page.' }),
  errors: Type.Integer({ description: 'ERROR events thrown on the page (failed requests are not counted per page).' }),
}, { $id: 'PageReport', title: 'PageReport', additionalProperties: false })

export const PAGE_SORTS = ['views', 'lcp', 'inp', 'cls'] as const
export type PageSort = (typeof PAGE_SORTS)[number]

const { limit, offset } = pageQuery('pages')
export const PageListQuery = Type.Object({
  date: Type.Optional(Type.String({
    format: 'date', description: 'YYYY-MM-DD: the counts of that UTC day. Overrides from and to.', examples: ['2026-11-20'],
  })),
  ...periodQuery('event time; counters are kept per UTC day, so the period counts every day it touches'),
  sort: Type.Optional(StringEnum(PAGE_SORTS, {
    description: 'views (the default): the most viewed first; lcp, inp or cls: the worst p75 of that vital first, pages '
      + 'without its samples last, then by views. The url breaks ties.',
  })),
  limit,
  offset,
})
export type PageListQuery = Static<typeof PageListQuery>

export const PageListResponse = Type.Object({
  ...pageFields('page', 'pages'),
  total: Type.Integer({ description: 'Pages with any count in the period (views, errors, rage or dead clicks, vitals), ignoring limit and offset.' }),
  pages: Type.Array(ref(PageReportSchema), { description: 'In the order `sort` names.' }),
}, { $id: 'PageList', title: 'PageList', additionalProperties: false })

export type VitalSummaryView = Static<typeof VitalSummarySchema>
export type PageReportView = Static<typeof PageReportSchema>
export type PageListView = Static<typeof PageListResponse>

/** Schemas referenced by $id; registered once with app.addSchema. */
export const pageSchemas = [VitalSummarySchema, PageReportSchema, PageListResponse]
