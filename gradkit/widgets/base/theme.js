// The page's theme for the pictures: theme.css's --gk-<name>, read before each paint (readTheme ->
// useTheme -> COLORS). LIGHT, the fallback, is the palette's light half (kept equal by a test).

export const LIGHT = Object.freeze({
  blue: "#0072B2", vermillion: "#C24E00", green: "#007A5A", pink: "#A8487F", orange: "#9A6700",
  sky: "#1F78B4", purple: "#7B3FA0", grey: "#6B6B6B", ink: "#222222", muted: "#555555",
  error: "#B3261E", pass: "#1B7F3B", warn: "#8A5A00", select: "#0B5CAD", "on-select": "#FFFFFF",
  face: "#F2F2F2", "face-hover": "#E4E4E4", paper: "#FFFFFF", grid: "#E3E3E3", line: "#D0D0D0",
});

// The colours the picture being painted uses, by palette name.
export const COLORS = { ...LIGHT };

const HEX = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i;

// The palette in getComputedStyle(root) (null: not attached); a name not set to a hex colour keeps LIGHT's.
export function readTheme(style) {
  return Object.fromEntries(Object.entries(LIGHT).map(([name, fallback]) => {
    const value = style ? String(style.getPropertyValue(`--gk-${name}`) || "").trim() : "";
    return [name, HEX.test(value) ? value.toUpperCase() : fallback];
  }));
}

// Paint with `colors` from now on.
export function useTheme(colors) {
  Object.assign(COLORS, colors);
}

// A palette colour written as its light value (a dtype's, from Python) in the theme in use.
const BY_LIGHT = Object.fromEntries(Object.entries(LIGHT).map(([name, hex]) => [hex, name]));
export function themed(color) {
  const name = BY_LIGHT[String(color).toUpperCase()];
  return name ? COLORS[name] : color;
}

// A palette colour for an HTML swatch: the page's --gk-<name>, so it follows the theme by itself.
export function cssColor(name) {
  if (!(name in LIGHT)) throw new Error(`cssColor: no palette colour named ${JSON.stringify(name)}`);
  return `var(--gk-${name}, ${LIGHT[name]})`;
}

// WCAG relative luminance of "#RRGGBB" / "#RGB" / "rgb(r,g,b)": 0.2126 R + 0.7152 G + 0.0722 B
// of the linearised channels (c / 12.92 below 0.04045, else ((c + 0.055) / 1.055)^2.4).
export function luminance(color) {
  const s = String(color).replace(/\s/g, "");
  const m = /^rgba?\((\d+),(\d+),(\d+)/.exec(s);
  let rgb;
  if (m) rgb = m.slice(1, 4).map(Number);
  else if (HEX.test(s)) {
    const d = s.length === 4 ? [...s.slice(1)].map((c) => c + c).join("") : s.slice(1);
    rgb = [0, 2, 4].map((i) => parseInt(d.slice(i, i + 2), 16));
  } else throw new Error(`luminance: not a colour: ${JSON.stringify(color)}`);
  const [r, g, b] = rgb.map((c) => { const v = c / 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

// WCAG contrast ratio (L_lighter + 0.05) / (L_darker + 0.05), 1 to 21.
export function contrast(a, b) {
  const [lo, hi] = [luminance(a), luminance(b)].sort((x, y) => x - y);
  return (hi + 0.05) / (lo + 0.05);
}

// Calls `onChange()` whenever the theme may have changed (Jupyter's data-jp-theme-* on body, a class
// on body or <html> in VS Code and others, prefers-color-scheme). Returns stop().
export function watchTheme(onChange, win = globalThis.window) {
  const stops = [];
  const doc = win && win.document;
  if (doc && typeof win.MutationObserver === "function") {
    const observer = new win.MutationObserver(() => onChange());
    const attributeFilter = ["data-jp-theme-light", "data-jp-theme-name", "class", "data-theme"];
    for (const node of [doc.body, doc.documentElement]) if (node) observer.observe(node, { attributes: true, attributeFilter });
    stops.push(() => observer.disconnect());
  }
  const query = win && typeof win.matchMedia === "function" ? win.matchMedia("(prefers-color-scheme: dark)") : null;
  if (query && typeof query.addEventListener === "function") {
    const listener = () => onChange();
    query.addEventListener("change", listener);
    stops.push(() => query.removeEventListener("change", listener));
  }
  return () => { for (const stop of stops.splice(0)) stop(); };
}
