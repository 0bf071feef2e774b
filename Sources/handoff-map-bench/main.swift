print("handoff-map-bench: not written yet")
