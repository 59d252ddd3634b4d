#!/usr/bin/env node
// The compile cache first, then the rest: a module loaded before it is turned on is compiled anew.
import { enableCompileCache } from './common/compile-cache.js';

enableCompileCache();
await import('./cli/start.js');
