import Testing
@testable import StratusHTTP

/// The server caps malloc's arenas unless its operator chose a cap (docs/architecture.md: what the watcher's added threads leave in glibc's arenas).
@Suite struct MallocArenasTests {
    @Test func anOperatorsOwnCapWins() {
        #expect(!MallocArenas.limitToCores(environment: ["MALLOC_ARENA_MAX": "8"]))
        #expect(!MallocArenas.limitToCores(environment: ["GLIBC_TUNABLES": "glibc.malloc.tcache_count=0:glibc.malloc.arena_max=4"]))
    }

    @Test func otherwiseGlibcTakesTheCap() {
        #if canImport(Glibc)
        #expect(MallocArenas.limitToCores(environment: ["GLIBC_TUNABLES": "glibc.malloc.tcache_count=7"]))
        #expect(MallocArenas.limitToCores(environment: [:]))
        #endif
    }
}
