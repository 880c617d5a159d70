#!/usr/bin/env node
// Runs the bundled service (dist/), building it first when the sources are newer: there is no
// separate build step between `npm install` and `npm start`.
import { buildService, OUTFILE } from '../scripts/build.mjs'

process.setSourceMapsEnabled(true)
await buildService()
const { main } = await import(OUTFILE)
process.exitCode = await main(process.argv.slice(2))
