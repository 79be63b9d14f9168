"""The application on top of the pipeline: build, batch, serve, watch, index and the other commands' library API."""
