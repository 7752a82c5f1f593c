//! A drawing the user moves around: drag or arrow keys to pan, the wheel, `+`/`−` or the buttons to zoom,
//! Fit to see all of it. Shared by the teaching view and the corpus graph; moving only rewrites the SVG's
//! `viewBox`, so no node is touched and thousands of them stay cheap to move.

use leptos::prelude::*;

/// The visible part of a drawing: x, y, width, height in its own units.
pub type ViewBox = (f64, f64, f64, f64);

const ZOOM_STEP: f64 = 1.2;

fn zoom(view: ViewBox, factor: f64, (cx, cy): (f64, f64)) -> ViewBox {
    let (x, y, w, h) = view;
    (cx - (cx - x) * factor, cy - (cy - y) * factor, w * factor, h * factor)
}

fn centre((x, y, w, h): ViewBox) -> (f64, f64) {
    (x + w / 2.0, y + h / 2.0)
}

pub use crate::retrieve::trace::layout::short;

/// The drawing `children`, `width` × `height` units, in an `<svg id=id>` with zoom buttons above it.
/// `view_box` is the caller's, so it can tell how far the user zoomed in. Fit shows `fitted` (the whole
/// drawing where none is given); `size`, where given, follows the SVG's size on screen in CSS pixels.
#[component]
pub fn Canvas(
    id: &'static str,
    label: &'static str,
    width: f64,
    height: f64,
    view_box: RwSignal<ViewBox>,
    #[prop(optional)] fitted: Option<Signal<ViewBox>>,
    #[prop(optional)] size: Option<RwSignal<(f64, f64)>>,
    children: Children,
) -> impl IntoView {
    let full: ViewBox = (0.0, 0.0, width, height);
    let fit = move || fitted.map_or(full, |fitted| fitted.get_untracked());
    view_box.set(full);
    let svg = NodeRef::<leptos::svg::Svg>::new();
    if let Some(size) = size {
        follow_size(svg, size);
    }
    let drag = StoredValue::new(None::<(f64, f64, ViewBox)>);

    // Where a pointer is in the drawing's units, and the SVG's size on screen.
    let svg_point = move |event: &web_sys::MouseEvent| {
        let target: web_sys::Element = event_target(event);
        let svg = target.closest("svg").ok().flatten().unwrap_or(target);
        let rect = svg.get_bounding_client_rect();
        let (x, y, w, h) = view_box.get_untracked();
        let fx = (event.client_x() as f64 - rect.left()) / rect.width().max(1.0);
        let fy = (event.client_y() as f64 - rect.top()) / rect.height().max(1.0);
        ((x + fx * w, y + fy * h), rect.width().max(1.0), rect.height().max(1.0))
    };
    let on_wheel = move |event: web_sys::WheelEvent| {
        event.prevent_default();
        let (point, ..) = svg_point(&event);
        let factor = if event.delta_y() > 0.0 { ZOOM_STEP } else { 1.0 / ZOOM_STEP };
        view_box.update(|view| *view = zoom(*view, factor, point));
    };
    let on_pointer_down = move |event: web_sys::PointerEvent| {
        drag.set_value(Some((event.client_x() as f64, event.client_y() as f64, view_box.get_untracked())));
    };
    let on_pointer_move = move |event: web_sys::PointerEvent| {
        let Some((start_x, start_y, (x, y, w, h))) = drag.get_value() else { return };
        let (_, width, height) = svg_point(&event);
        let dx = (event.client_x() as f64 - start_x) / width * w;
        let dy = (event.client_y() as f64 - start_y) / height * h;
        view_box.set((x - dx, y - dy, w, h));
    };
    let end_drag = move |_| drag.set_value(None);
    let on_key = move |event: web_sys::KeyboardEvent| {
        let view @ (x, y, w, h) = view_box.get_untracked();
        let moved = match event.key().as_str() {
            "+" | "=" => zoom(view, 1.0 / ZOOM_STEP, centre(view)),
            "-" => zoom(view, ZOOM_STEP, centre(view)),
            "ArrowLeft" => (x - w * 0.1, y, w, h),
            "ArrowRight" => (x + w * 0.1, y, w, h),
            "ArrowUp" => (x, y - h * 0.1, w, h),
            "ArrowDown" => (x, y + h * 0.1, w, h),
            _ => return,
        };
        event.prevent_default();
        view_box.set(moved);
    };
    let zoom_by = move |factor: f64| view_box.update(|view| *view = zoom(*view, factor, centre(*view)));

    view! {
        <div class="zoom-controls" role="group" aria-label="Zoom">
            <button type="button" class="zoom-in" aria-label="Zoom in" on:click=move |_| zoom_by(1.0 / ZOOM_STEP)>"+"</button>
            <button type="button" class="zoom-out" aria-label="Zoom out" on:click=move |_| zoom_by(ZOOM_STEP)>"−"</button>
            <button type="button" class="zoom-reset" on:click=move |_| view_box.set(fit())>"Fit"</button>
        </div>
        <svg id=id class="graph-canvas" role="img" tabindex="0" aria-label=label node_ref=svg
            viewBox=move || { let (x, y, w, h) = view_box.get(); format!("{x} {y} {w} {h}") }
            on:wheel=on_wheel on:pointerdown=on_pointer_down on:pointermove=on_pointer_move
            on:pointerup=end_drag on:pointerleave=end_drag on:keydown=on_key>
            {children()}
        </svg>
    }
}

/// Keeps `size` at `svg`'s size on screen (CSS pixels) once it is drawn: it is 0 × 0 in a closed
/// `<details>`, and changes with the window and full screen.
fn follow_size(svg: NodeRef<leptos::svg::Svg>, size: RwSignal<(f64, f64)>) {
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;
    let measure = move || {
        if let Some(element) = svg.get_untracked() {
            let rect = element.get_bounding_client_rect();
            size.set((rect.width(), rect.height()));
        }
    };
    let observing = StoredValue::new_local(None::<(web_sys::ResizeObserver, Closure<dyn Fn()>)>);
    Effect::new(move |_| {
        let Some(element) = svg.get() else { return };
        let on_resize = Closure::<dyn Fn()>::new(measure);
        if let Ok(observer) = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()) {
            observer.observe(&element);
            observing.set_value(Some((observer, on_resize)));
        }
    });
    on_cleanup(move || {
        observing.try_with_value(|held| held.as_ref().map(|(observer, _)| observer.disconnect()));
    });
}
