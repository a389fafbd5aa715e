// A static export (out/): engram runs in the browser only, so no server is needed.
export default { output: 'export' };
