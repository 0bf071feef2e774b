/// A value that belongs to one thread of execution, the device's (its queue, or the terminal
/// device's run loop), carried through the `Sendable` closures that hand work back to it.
///
/// The threading rule (ARCHITECTURE.md, "Threading rule") is that everything of a device is
/// touched on the device's own queue or run loop only. The compiler cannot see that rule across a
/// closure that hops away and back (a network callback, `AppEnvironment.perform`, a host's
/// `perform`), hence `@unchecked Sendable`, in this one place: create a `Confined` on the device's
/// thread, read ``value`` only in work that runs there again. Everything else that crosses
/// threads is a `Sendable` value, an actor or a `Mutex`.
///
/// For an object that may go away before the work comes back (an app closed during a load),
/// confine a weak reference: `Confined(weak: self)`, then `value.object` is nil once it is gone.
package struct Confined<Value>: @unchecked Sendable {
    /// The value; on its own thread only.
    package let value: Value

    package init(_ value: Value) {
        self.value = value
    }
}

/// A weak reference, for ``Confined`` (not `Sendable` on its own).
package struct Weak<Object: AnyObject> {
    package weak var object: Object?

    package init(_ object: Object?) {
        self.object = object
    }
}

extension Confined {
    /// A weak reference to `object`, confined to its thread.
    package init<Object: AnyObject>(weak object: Object) where Value == Weak<Object> {
        self.init(Weak(object))
    }
}
