// Baseline for bench/bundle-size.ts: everything `lit` exports, bundled exactly as the widget is.
export * from 'lit';
