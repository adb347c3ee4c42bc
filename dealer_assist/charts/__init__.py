"""Pictures drawn on the server as SVG: what they count (`data`), a shoe against its exact
odds (`fit`), and the drawing (`svg`). docs/charts.md says what each picture shows."""
