#!/usr/bin/env node
// Runs the TypeScript sources directly: no build step between `npm install` and `npm start`.
import { register } from 'tsx/esm/api'

register()
const { main } = await import('../src/cli.ts')
process.exitCode = await main(process.argv.slice(2))
