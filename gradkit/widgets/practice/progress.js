// A Predict's progress kept across a reload: the guess locked in (and a second try) is written to
// the browser's own storage under the Predict's id, and a fresh Predict of the same id (the lesson
// reopened and run again, the static page reloaded) takes it back through the page's own values,
// which Python checks as any lock. Nothing leaves the browser. On a JupyterHub every learner's
// server shares one origin, so the key holds the server's path (/user/NAME/), never another
// learner's guesses.
export const PROGRESS_PREFIX = "gradkit-predict";

// The storage key of one Predict's progress, with the part of the page's path that is one
// learner's server: "/user/ada/" on a JupyterHub, "" else.
export function progressKey(predictId, pathname) {
  const server = /^(\/user\/[^/]+\/)/.exec(String(pathname || ""));
  return `${PROGRESS_PREFIX}:${server ? server[1] : ""}:${predictId}`;
}

const here = () => (globalThis.location ? globalThis.location.pathname : "");

// Keep a locked Predict's guess (and second try) for a reload; a state not locked keeps nothing.
export function rememberProgress(predictId, state, pathname = here()) {
  if (!state.locked) return;
  const record = { guess: String(state.guess ?? ""), second: String(state.second ?? "") };
  try {
    globalThis.localStorage.setItem(progressKey(predictId, pathname), JSON.stringify(record));
  } catch {
    // no storage, full or refused (a sandboxed frame, a browser setting): the lesson still
    // works, it only forgets on a reload
  }
}

// The progress kept for a Predict: {guess, second} (strings, as the page sends them), or null
// (none kept, or no storage).
export function recalledProgress(predictId, pathname = here()) {
  try {
    const record = JSON.parse(globalThis.localStorage.getItem(progressKey(predictId, pathname)) || "null");
    if (!record || typeof record.guess !== "string" || !record.guess) return null;
    return { guess: record.guess.slice(0, 100), second: String(record.second || "").slice(0, 100) };
  } catch {
    return null;
  }
}
