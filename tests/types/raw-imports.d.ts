// Vite's `?raw` imports (a file's text), which tests beside shared code use for fixtures: shared code may not read
// files itself. The renderer's build gets the same declaration from vite/client.
declare module '*?raw' {
  const text: string;
  export default text;
}
