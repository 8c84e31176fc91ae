/// The Steno device agent library: what an iPhone app needs to push its Apple Calendar
/// events to a Steno server and pull back what Steno wants on the device.
public enum StenoAgent {}
