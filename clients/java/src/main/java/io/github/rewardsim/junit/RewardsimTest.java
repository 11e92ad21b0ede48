package io.github.rewardsim.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test class that uses rewardsim: one simulator per JVM (the one at
 * REWARDSIM_URL and REWARDSIM_CONTROL_URL, or one started on free ports from
 * REWARDSIM_BIN, the platform artefact or PATH: see
 * {@link io.github.rewardsim.RewardsimServer#start(String, java.util.List)}),
 * and one fresh {@link io.github.rewardsim.Channel} per test class, like
 * DEMOBANK (or REWARDSIM_LIKE), injected into test, lifecycle and
 * constructor parameters (as is the {@link io.github.rewardsim.RewardsimServer}).
 * Classes run in parallel without seeing each other.
 */
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RewardsimExtension.class)
public @interface RewardsimTest {
    /**
     * The channel the test class's channel is made like.
     *
     * @return its name; empty: REWARDSIM_LIKE when set, else DEMOBANK
     */
    String like() default "";
}
