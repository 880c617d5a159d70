import Type, { type Static } from 'typebox'
import { SOURCE_CONTEXT_LINES } from './limits.ts'
import { Nullable } from '../util/schema.ts'

/** One stack frame of an error event, mapped to the original source through an uploaded source map when one matches. */
export const ResolvedFrameSchema = Type.Object({
  function: Nullable(Type.String({ description: 'Function name; null when anonymous.' })),
  file: Nullable(Type.String({ description: 'Script URL, or the original source file when mapped.' })),
  line: Nullable(Type.Integer({ minimum: 1, description: 'Line, 1-based.' })),
  column: Nullable(Type.Integer({ minimum: 1, description: 'Column, 1-based.' })),
  mapped: Type.Boolean({
    description: 'Whether an uploaded source map gave the original position. When false, function, file, line and '
      + 'column are as the browser printed them (as in `stack`, which keeps every frame as printed), and context is null.',
  }),
  inApp: Type.Boolean({
    description: 'false for library and browser code: a source under node_modules, one the map lists in its '
      + 'ignoreList, or a browser extension\'s script.',
  }),
  context: Nullable(Type.Object({
    pre: Type.Array(Type.String(), { description: `Up to ${SOURCE_CONTEXT_LINES} lines before line.` }),
    line: Type.String({ description: 'The frame\'s line of original source.' }),
    post: Type.Array(Type.String(), { description: `Up to ${SOURCE_CONTEXT_LINES} lines after line.` }),
  }, {
    additionalProperties: false,
    description: 'The original source around the frame, from the map\'s sourcesContent; null when unmapped, when the map has '
      + 'none, and for library frames (inApp false). In a session\'s events only the top frame with context keeps it; the '
      + 'issue\'s latestEvent keeps it on every frame.',
  })),
  cause: Type.Optional(Type.Integer({
    minimum: 1,
    description: 'For a chained error (a Sentry exception with causes): 1 on the frames of the error\'s cause, 2 on those of the '
      + 'cause\'s cause, and so on, each cause headed in `stack` by a `Caused by: Type: message` line. Absent on the frames of the error thrown.',
  })),
}, {
  $id: 'ResolvedFrame', title: 'ResolvedFrame', additionalProperties: false,
  description: 'A stack frame, mapped to the original source when an uploaded source map matches its script: by exact '
    + 'URL, else by a `~/path` map with the same path; query and fragment ignored. `function` is the name of the original '
    + 'function around the position (found in sourcesContent), else the printed name.',
})
export type ResolvedFrame = Static<typeof ResolvedFrameSchema>
