/// Delta debugging over a failing input: finds a smaller one that still fails.
///
/// First chunks are removed (Zeller's ddmin: halves, then quarters, … down to single elements),
/// then each element alone, then each element is replaced by its simplifications, simplest first;
/// the passes repeat until none changes anything or the budget of runs is spent. Every candidate
/// is judged by `fails`, which must answer the same for the same input (the explorer's runs are
/// seed-determined), and ``runs`` counts how many times it was asked.
package struct Shrinker<Element> {
    package let fails: ([Element]) -> Bool
    package let simplify: (Element) -> [Element]
    /// At most this many runs of `fails`; the smallest failing input found by then is kept.
    package let budget: Int
    package private(set) var runs = 0

    package init(
        budget: Int = 5_000, simplify: @escaping (Element) -> [Element] = { _ in [] },
        fails: @escaping ([Element]) -> Bool
    ) {
        self.fails = fails
        self.simplify = simplify
        self.budget = budget
    }

    /// Whether `candidate` fails, counted (false once the budget is spent).
    private mutating func test(_ candidate: [Element]) -> Bool {
        guard runs < budget else { return false }
        runs += 1
        return fails(candidate)
    }

    /// A smaller failing input than `input`, which must fail; never empty unless the empty
    /// input fails.
    package mutating func shrink(_ input: [Element]) -> [Element] {
        var current = input
        if current.count > 0, test([]) { return [] }
        while true {
            current = removeChunks(current)
            current = removeSingles(current)
            let simplified = simplifyEach(current)
            current = simplified.elements
            // A simpler step may make others unnecessary: remove again.
            guard simplified.changed, runs < budget else { return current }
        }
    }

    /// ddmin: try the complement of each of `granularity` chunks; on a failure keep it and
    /// coarsen, else refine until chunks are single elements.
    private mutating func removeChunks(_ input: [Element]) -> [Element] {
        var current = input
        var granularity = 2
        while current.count >= 2, runs < budget {
            let size = (current.count + granularity - 1) / granularity
            var reduced = false
            var start = 0
            while start < current.count {
                let end = min(start + size, current.count)
                let complement = Array(current[..<start]) + Array(current[end...])
                if !complement.isEmpty, test(complement) {
                    current = complement
                    granularity = max(granularity - 1, 2)
                    reduced = true
                    break
                }
                start = end
            }
            if reduced { continue }
            guard granularity < current.count else { break }
            granularity = min(granularity * 2, current.count)
        }
        return current
    }

    /// Each element alone, from the last (later steps depend on earlier ones, rarely the reverse).
    private mutating func removeSingles(_ input: [Element]) -> [Element] {
        var current = input
        var index = current.count - 1
        while index >= 0, current.count > 1, runs < budget {
            var candidate = current
            candidate.remove(at: index)
            if test(candidate) { current = candidate }
            index -= 1
        }
        return current
    }

    private mutating func simplifyEach(_ input: [Element]) -> (elements: [Element], changed: Bool) {
        var current = input
        var changed = false
        for index in current.indices {
            var progressed = true
            while progressed, runs < budget {
                progressed = false
                for simpler in simplify(current[index]) {
                    var candidate = current
                    candidate[index] = simpler
                    if test(candidate) {
                        current = candidate
                        changed = true
                        progressed = true
                        break
                    }
                }
            }
        }
        return (current, changed)
    }
}
