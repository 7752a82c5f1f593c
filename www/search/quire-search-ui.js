// The search box a built site adds (`quire site --built`): a form, a status line and the pages found, drawn
// into every element marked `data-quire-search` (or the one with id `quire-search`). Its colours, fonts and
// spacing are CSS variables (quire-search.css). It asks the site search module (quire-search.js, wasm),
// which fetches the parts of the index each question needs from the folder beside this file.
const bundle = new URL(".", import.meta.url);
// The bundle lies in a folder at the site's root: a page's source is its path from there.
const siteRoot = new URL("../", bundle);
const PAGES = 10;
const TYPING_PAUSE_MS = 250;

let opened = null;
function index() {
  opened ??= Promise.all([bindings(), moduleBytes()]).then(async ([{ default: init, QuireSearch }, module_or_path]) => {
    await init({ module_or_path });
    return QuireSearch.open(new URL("index", bundle).href);
  });
  return opened;
}

/// `name`'s bytes from its gzipped copy (`quire site` writes one beside every file): a static server that
/// does not compress (python3 -m http.server, many object stores) sends a third of the bytes, which the
/// browser inflates. A host that decodes the copy itself (Content-Encoding) sends it as it is. `null`
/// without the copy or without DecompressionStream.
async function inflated(name) {
  if (typeof DecompressionStream !== "function") return null;
  const response = await fetch(new URL(`${name}.gz`, bundle)).catch(() => null);
  if (!response?.ok) return null;
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer());
}

/// The module's bytes, or its own URL where they cannot come inflated.
async function moduleBytes() {
  return (await inflated("quire-search_bg.wasm")) ?? new URL("quire-search_bg.wasm", bundle);
}

/// The module's bindings (quire-search.js), imported from their inflated copy; from the file itself where
/// there is none, or where the site's Content-Security-Policy refuses a module made in the page (blob:).
async function bindings() {
  const script = await inflated("quire-search.js");
  if (script) {
    const url = URL.createObjectURL(new Blob([script], { type: "text/javascript" }));
    try {
      return await import(url);
    } catch {
      // Refused: the file itself, below.
    } finally {
      URL.revokeObjectURL(url);
    }
  }
  return import(new URL("quire-search.js", bundle).href);
}

function pageUrl(source) {
  return new URL(source.split("/").map(encodeURIComponent).join("/"), siteRoot).href;
}

function element(tag, attributes = {}, children = []) {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  made.append(...children);
  return made;
}

function excerpt(pieces) {
  return element("p", { class: "quire-search-excerpt" }, pieces.map((piece) => (piece.marked ? element("mark", {}, [piece.text]) : piece.text)));
}

function result(page) {
  const link = element("a", { href: pageUrl(page.source) }, [page.title || page.source]);
  // Not a heading: the page the box sits in decides its headings' levels.
  const parts = [element("p", { class: "quire-search-title" }, [link])];
  if (page.section) parts.push(element("p", { class: "quire-search-section" }, [page.section]));
  parts.push(excerpt(page.excerpt));
  return element("li", { class: "quire-search-result" }, parts);
}

function said(found) {
  const count = found.pages.length;
  if (count === 0) return `No page found for “${found.question}”.`;
  const how = found.by_meaning ? "by their words and meaning" : "by their words";
  return `${count} ${count === 1 ? "page" : "pages"} for “${found.question}”, ${how}.`;
}

function mount(host, number) {
  const inputId = `quire-search-input-${number}`;
  const input = element("input", { id: inputId, type: "search", name: "q", autocomplete: "off", spellcheck: "false" });
  const label = element("label", { for: inputId }, [host.dataset.label || "Search this site"]);
  const button = element("button", { type: "submit" }, ["Search"]);
  const form = element("form", { role: "search", class: "quire-search-form" }, [label, element("div", { class: "quire-search-row" }, [input, button])]);
  const status = element("p", { class: "quire-search-status", role: "status" });
  const list = element("ol", { class: "quire-search-results", "aria-label": "Pages found" });
  host.classList.add("quire-search");
  host.replaceChildren(form, status, list);
  let asked = 0;
  async function ask() {
    const question = input.value.trim();
    const mine = ++asked;
    if (!question) {
      status.textContent = "";
      list.replaceChildren();
      return;
    }
    host.setAttribute("aria-busy", "true");
    try {
      const found = JSON.parse(await (await index()).search(question, PAGES));
      if (mine !== asked) return;
      list.replaceChildren(...found.pages.map(result));
      status.textContent = said(found);
      host.dataset.fetchedBytes = String(found.fetched_bytes);
    } catch (error) {
      if (mine !== asked) return;
      list.replaceChildren();
      status.textContent = `The search could not answer: ${error.message ?? error}`;
    } finally {
      if (mine === asked) host.removeAttribute("aria-busy");
    }
  }
  let pause = null;
  input.addEventListener("input", () => {
    clearTimeout(pause);
    pause = setTimeout(ask, TYPING_PAUSE_MS);
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    clearTimeout(pause);
    ask();
  });
  const asked_in_url = new URLSearchParams(location.search).get("q");
  if (asked_in_url && number === 0) {
    input.value = asked_in_url;
    ask();
  }
}

const hosts = document.querySelectorAll("[data-quire-search], #quire-search");
[...new Set(hosts)].forEach(mount);
