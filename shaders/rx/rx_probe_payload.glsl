// The ray payload of the RX ray-tracing pipeline: the running result of one lookup.
struct RxPayload {
  RxHitState s;
  uint query;
};
