// isolated-vm is installed under one npm alias per major (isolated-vm-5, -6, -7; see load-ivm.ts),
// so no package is named 'isolated-vm'. Majors 5 to 7 share one API and one .d.ts; type imports of
// 'isolated-vm' read 5's, the alias installed (unbuilt where unused) on every supported Node.
declare module 'isolated-vm' {
  import ivm = require('isolated-vm-5');
  export = ivm;
}
