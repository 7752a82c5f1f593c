//! The LLM settings: which endpoint answers, with what model, key, sampling, context size, instructions and
//! LLM-assisted retrieval; kept in this browser's local storage. The API key is kept there only when the
//! user ticks "remember"; else it lives in this tab's session storage (so that the reload a new endpoint
//! needs keeps it) and goes when the tab closes. It is sent to that endpoint only. Saving a new
//! endpoint also stores its origin, which the loader in index.html writes into the page's
//! Content-Security-Policy: the page reloads once so that the policy allows it. Storage goes through
//! gloo-storage: the settings as JSON (its own format, which is what was always stored), the key and the
//! origin as the plain strings they have always been (the loader reads the origin as one), through its
//! `raw` handle.

use gloo_storage::errors::StorageError;
use gloo_storage::{LocalStorage, SessionStorage, Storage};
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::{Deserialize, Serialize};

use super::llm;
use crate::generate::{self, Endpoint, NotAnEndpoint, PromptStyle, Provider, endpoint_origin};
use crate::retrieve::assist::Assist;

const SETTINGS_KEY: &str = "quire.llm.settings";
const API_KEY_KEY: &str = "quire.llm.key";
/// Read by the loader script scripts/finish_build.py writes into index.html; keep the two in step.
const ORIGIN_KEY: &str = "quire.llm.origin";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LlmSettings {
    pub provider: Provider,
    pub base_url: String,
    pub model: String,
    pub temperature: f32,
    pub max_tokens: u32,
    /// Chunks given to the model as context.
    pub context_chunks: usize,
    pub style: PromptStyle,
    /// The system prompt sent; the style's until the user edits it.
    pub instructions: String,
    pub assist: Option<Assist>,
    /// Seconds to wait for the endpoint to start answering (a local model may first need loading).
    pub timeout_seconds: u32,
    pub remember_key: bool,
    /// The origin the API key was entered for: the key is sent there only.
    pub key_origin: Option<String>,
}

impl Default for LlmSettings {
    fn default() -> Self {
        LlmSettings {
            provider: Provider::Ollama,
            base_url: String::new(),
            model: String::new(),
            temperature: 0.2,
            max_tokens: 512,
            context_chunks: 6,
            style: PromptStyle::Brief,
            instructions: PromptStyle::Brief.instructions().to_string(),
            assist: None,
            timeout_seconds: 60,
            remember_key: false,
            key_origin: None,
        }
    }
}

impl LlmSettings {
    pub fn configured(&self) -> bool {
        !self.base_url.trim().is_empty() && !self.model.trim().is_empty()
    }

    pub fn endpoint(&self, api_key: &str) -> Endpoint {
        let mut endpoint = Endpoint::new(self.provider, self.base_url.trim(), self.model.trim());
        endpoint.api_key = generate::key_for(api_key, self.key_origin.as_deref(), &self.base_url).map(str::to_string);
        endpoint.temperature = self.temperature;
        endpoint.max_tokens = self.max_tokens;
        endpoint
    }
}

/// Whether the browser gives this page its local storage; it refuses where the user blocks sites' data, and
/// gloo-storage throws then, so every use of it asks first.
fn has_local_storage() -> bool {
    web_sys::window().is_some_and(|window| matches!(window.local_storage(), Ok(Some(_))))
}

fn has_session_storage() -> bool {
    web_sys::window().is_some_and(|window| matches!(window.session_storage(), Ok(Some(_))))
}

fn read(key: &str) -> Option<String> {
    has_local_storage().then(|| LocalStorage::raw().get_item(key).ok().flatten()).flatten()
}

/// The stored settings and the key (remembered, or kept for this tab; empty when none).
pub fn load() -> (LlmSettings, String) {
    let mut settings: LlmSettings =
        has_local_storage().then(|| LocalStorage::get(SETTINGS_KEY).ok()).flatten().unwrap_or_default();
    let this_tab = has_session_storage().then(|| SessionStorage::raw().get_item(API_KEY_KEY).ok().flatten());
    let key = read(API_KEY_KEY).or(this_tab.flatten()).unwrap_or_default();
    // Settings saved before keys were bound to an origin: the key was saved with this address.
    if settings.key_origin.is_none() && !key.is_empty() {
        settings.key_origin = endpoint_origin(&settings.base_url).ok();
    }
    (settings, key)
}

/// The endpoint origin stored for the page's policy.
pub fn stored_origin() -> Option<String> {
    read(ORIGIN_KEY).filter(|origin| endpoint_origin(origin).as_deref() == Ok(origin.as_str()))
}

/// Why the settings were not stored.
#[derive(Debug, thiserror::Error)]
pub enum NotSaved {
    #[error(transparent)]
    Endpoint(NotAnEndpoint),
    #[error("this browser keeps no local storage for this page")]
    NoLocalStorage,
    /// The settings could not be written as JSON.
    #[error("{0}")]
    Encoding(serde_json::Error),
    #[error("the browser refused to store the settings")]
    Refused,
}

/// Stores `settings` (and the key if it is to be remembered); whether the page must reload for its policy to
/// allow the endpoint.
pub fn save(settings: &LlmSettings, api_key: &str) -> Result<bool, NotSaved> {
    let origin = match settings.base_url.trim() {
        "" => None,
        url => Some(endpoint_origin(url).map_err(NotSaved::Endpoint)?),
    };
    if !has_local_storage() {
        return Err(NotSaved::NoLocalStorage);
    }
    let failed = |_| NotSaved::Refused;
    LocalStorage::set(SETTINGS_KEY, settings).map_err(|error| match error {
        StorageError::SerdeError(error) => NotSaved::Encoding(error),
        _ => NotSaved::Refused,
    })?;
    let storage = LocalStorage::raw();
    let remembered = settings.remember_key && !api_key.is_empty();
    match remembered {
        true => storage.set_item(API_KEY_KEY, api_key).map_err(failed)?,
        false => LocalStorage::delete(API_KEY_KEY),
    }
    if has_session_storage() {
        if remembered || api_key.is_empty() {
            SessionStorage::delete(API_KEY_KEY);
        } else {
            let _ = SessionStorage::raw().set_item(API_KEY_KEY, api_key);
        }
    }
    let page = web_sys::window().and_then(|w| w.location().origin().ok());
    match origin.filter(|o| Some(o) != page.as_ref()) {
        Some(origin) => storage.set_item(ORIGIN_KEY, &origin).map_err(failed)?,
        None => LocalStorage::delete(ORIGIN_KEY),
    }
    let allowed = llm::allowed_origins();
    Ok(stored_origin().is_some_and(|origin| allowed.is_some_and(|allowed| !allowed.contains(&origin))))
}

/// What a connection test found.
#[derive(Clone, Debug, PartialEq)]
enum Check {
    Running,
    Passed(String),
    Failed(String),
}

#[component]
pub fn SettingsPanel(settings: RwSignal<LlmSettings>, api_key: RwSignal<String>) -> impl IntoView {
    // The form edits a draft; Save stores it (and reloads when the policy must change).
    let draft = RwSignal::new(settings.get_untracked());
    let models = RwSignal::new(Vec::<String>::new());
    let check = RwSignal::new(None::<Check>);
    let saved = RwSignal::new(None::<String>);
    let edit = move |change: &dyn Fn(&mut LlmSettings)| {
        draft.update(|d| change(d));
        saved.set(None);
    };
    // A key belongs to the address it was entered for: another origin empties the field, so that it is
    // entered again for the new server rather than sent to it.
    let set_address = move |url: &str| {
        let origin = endpoint_origin(url).ok();
        let bound = draft.get_untracked().key_origin;
        let key_origin = match bound {
            Some(_) if bound != origin => {
                api_key.set(String::new());
                None
            }
            // A key typed before any address goes with the first one given.
            None if !api_key.get_untracked().is_empty() => origin,
            _ => bound,
        };
        edit(&|d| {
            d.base_url = url.to_string();
            d.key_origin = key_origin.clone();
        });
    };
    let preset = move |provider: Provider, url: &'static str| {
        edit(&|d| d.provider = provider);
        set_address(url);
    };
    let on_save = move |_| {
        let chosen = draft.get_untracked();
        match save(&chosen, &api_key.get_untracked()) {
            Ok(true) => {
                saved.set(Some("Saved. Reloading so that the page's security policy allows this endpoint…".into()));
                if let Some(window) = web_sys::window() {
                    let _ = window.location().reload();
                }
            }
            Ok(false) => {
                settings.set(chosen);
                saved.set(Some("Saved.".into()));
            }
            Err(reason) => saved.set(Some(reason.to_string())),
        }
    };
    let on_test = move |_| {
        let chosen = draft.get_untracked();
        let endpoint = chosen.endpoint(&api_key.get_untracked());
        check.set(Some(Check::Running));
        spawn_local(async move {
            match llm::test_connection(&endpoint, chosen.timeout_seconds).await {
                Ok(list) => {
                    let found = match endpoint.model.is_empty() {
                        true => format!("Connected: {} models. Pick one, then test again.", list.len()),
                        false => format!("Connected: {} answers. ({} models)", endpoint.model, list.len()),
                    };
                    models.set(list);
                    check.set(Some(Check::Passed(found)));
                }
                Err(failure) => {
                    if let crate::generate::Failure::UnknownModel { available, .. } = &failure {
                        models.set(available.clone());
                    }
                    check.set(Some(Check::Failed(failure.to_string())));
                }
            }
        });
    };
    let number = |ev: &leptos::ev::Event| event_target_value(ev).trim().parse::<f64>().ok();
    view! {
        <details class="panel" id="llm-settings">
            <summary>"LLM endpoint (for answers)"</summary>
            <p class="meta">"Answers come from an LLM you run or choose. Questions and the passages found for them go to this endpoint only; nothing else leaves the tab."</p>
            <div class="row" role="group" aria-label="Presets">
                <button type="button" id="preset-ollama" on:click=move |_| preset(Provider::Ollama, "http://127.0.0.1:11434")>"Local Ollama"</button>
                <button type="button" id="preset-lmstudio" on:click=move |_| preset(Provider::OpenAi, "http://127.0.0.1:1234/v1")>"Local LM Studio"</button>
            </div>
            <label>"API "
                <select id="llm-provider" on:change=move |ev| {
                    let provider = if event_target_value(&ev) == "ollama" { Provider::Ollama } else { Provider::OpenAi };
                    edit(&|d| d.provider = provider);
                }>
                    <option value="openai" selected=move || draft.get().provider == Provider::OpenAi>"OpenAI-compatible (chat completions)"</option>
                    <option value="ollama" selected=move || draft.get().provider == Provider::Ollama>"Ollama"</option>
                </select>
            </label>
            <label>"Base URL "
                <input id="llm-url" type="url" placeholder="http://127.0.0.1:11434" prop:value=move || draft.get().base_url
                    on:change=move |ev| { let url = event_target_value(&ev); set_address(&url) } />
            </label>
            <label>"Model "
                <input id="llm-model" list="llm-models" prop:value=move || draft.get().model
                    on:change=move |ev| { let model = event_target_value(&ev); edit(&|d| d.model = model.clone()) } />
                <datalist id="llm-models">{move || models.get().into_iter().map(|m| view! { <option value=m.clone()>{m.clone()}</option> }).collect_view()}</datalist>
            </label>
            <label>"API key "
                <input id="llm-key" type="password" autocomplete="off" prop:value=move || api_key.get()
                    on:change=move |ev| {
                        api_key.set(event_target_value(&ev));
                        edit(&|d| d.key_origin = endpoint_origin(&d.base_url).ok());
                    } />
            </label>
            <label class="toggle"><input id="llm-remember" type="checkbox" prop:checked=move || draft.get().remember_key
                on:change=move |ev| { let on = event_target_checked(&ev); edit(&|d| d.remember_key = on) } />"remember the key in this browser"</label>
            <div class="row">
                <label>"Temperature "<input id="llm-temperature" type="number" min="0" max="2" step="0.1" prop:value=move || draft.get().temperature.to_string()
                    on:change=move |ev| if let Some(t) = number(&ev) { edit(&|d| d.temperature = t.clamp(0.0, 2.0) as f32) } /></label>
                <label>"Max tokens "<input id="llm-max-tokens" type="number" min="16" max="32768" prop:value=move || draft.get().max_tokens.to_string()
                    on:change=move |ev| if let Some(n) = number(&ev) { edit(&|d| d.max_tokens = n.clamp(16.0, 32768.0) as u32) } /></label>
                <label>"Context chunks "<input id="llm-context" type="number" min="1" max="20" prop:value=move || draft.get().context_chunks.to_string()
                    on:change=move |ev| if let Some(n) = number(&ev) { edit(&|d| d.context_chunks = n.clamp(1.0, 20.0) as usize) } /></label>
                <label>"Timeout (s) "<input id="llm-timeout" type="number" min="1" max="600" prop:value=move || draft.get().timeout_seconds.to_string()
                    on:change=move |ev| if let Some(n) = number(&ev) { edit(&|d| d.timeout_seconds = n.clamp(1.0, 600.0) as u32) } /></label>
            </div>
            <fieldset id="llm-style">
                <legend>"Answer style (seed 004's prompt; edit it below)"</legend>
                {[(PromptStyle::Brief, "brief", "brief (at most 3 sentences)"), (PromptStyle::Detailed, "detailed", "detailed")].into_iter().map(|(style, key, label)| view! {
                    <label class="toggle"><input type="radio" name="llm-style" value=key prop:checked=move || draft.get().style == style
                        on:change=move |_| edit(&|d| { d.style = style; d.instructions = style.instructions().to_string(); }) />{label}</label>
                }).collect_view()}
                <label class="visually-hidden" for="llm-instructions">"The prompt's instructions"</label>
                <textarea id="llm-instructions" rows="4" prop:value=move || draft.get().instructions
                    on:change=move |ev| { let text = event_target_value(&ev); edit(&|d| d.instructions = text.clone()) }></textarea>
            </fieldset>
            <label>"LLM-assisted retrieval "
                <select id="llm-assist" on:change=move |ev| { let assist = Assist::parse(&event_target_value(&ev)).ok(); edit(&|d| d.assist = assist) }>
                    <option value="off" selected=move || draft.get().assist.is_none()>"off"</option>
                    {Assist::ALL.into_iter().map(|assist| view! {
                        <option value=assist.name() title=assist.description() selected=move || draft.get().assist == Some(assist)>{format!("{}: {}", assist.name(), assist.description())}</option>
                    }).collect_view()}
                </select>
            </label>
            <div class="row">
                <button type="button" id="llm-test" on:click=on_test>"Test the connection"</button>
                <button type="button" id="llm-save" on:click=on_save>"Save"</button>
            </div>
            {move || check.get().map(|check| {
                let (state, text) = match check {
                    Check::Running => ("running", "Testing…".to_string()),
                    Check::Passed(text) => ("passed", text),
                    Check::Failed(text) => ("failed", text),
                };
                view! { <p id="llm-check" data-state=state role="status">{text}</p> }
            })}
            {move || saved.get().map(|text| view! { <p id="llm-saved" role="status">{text}</p> })}
        </details>
    }
}
