"""Side-by-side timings of each chapter's kernel, its readable reference and the library."""
